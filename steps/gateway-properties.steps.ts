/**
 * Property-based payload scenarios of the MQTT gateway API
 * (features/mqtt-gateway-api/payload-properties.feature).
 *
 * The gateway payloads come from schemas/arbitrary.ts (derived from schemas/gateway.ts). Device
 * names are two placeholders (`iotc-slot-a`, `iotc-slot-b`); each case substitutes fresh names with
 * the run's prefix (journaled before the platform can create them, deleted after the case),
 * publishes through the scenario's gateway driver and reads back through the admin client. Seeds,
 * FC_SEED / FC_PATH replay and FC_RUNS work as in steps/properties.steps.ts (runProperty); the
 * default number of cases here is smaller, as every case creates and deletes devices over two
 * protocols.
 */
import { Then } from './support/cucumber';
import fc from 'fast-check';
import {
  hasStringValue,
  hasUntimedEntry,
  payloadPart,
  malformedGatewayAttributes,
  malformedGatewayTelemetry,
  validGatewayAttributes,
  validGatewayTelemetry,
  type GatewayResource,
  type MalformedPayload,
  type ValidGatewayPayload,
} from '../schemas/arbitrary';
import { GATEWAY_TOPICS, type MqttGateway } from '../simulators/gateway/mqtt-gateway';
import { isFailure, type PublishOutcome } from '../simulators/device/mqtt-connection';
import {
  checkOnlySentinel,
  checkStored,
  runProperty,
  SENTINEL_KEY,
  storedDataOf,
} from './properties.steps';
import type { IotcWorld } from './world';

const DEFAULT_RUNS = 20;
const STEP_TIMEOUT_MS = 150_000;
const SLOTS = ['iotc-slot-a', 'iotc-slot-b'] as const;
type Slot = (typeof SLOTS)[number];
const deviceNames = fc.constantFrom<string>(...SLOTS);

const TOPIC: Record<GatewayResource, string> = {
  telemetry: GATEWAY_TOPICS.telemetry,
  attributes: GATEWAY_TOPICS.attributes,
};

/**
 * The devices of one case: fresh platform names for the slots, and the body with those names put
 * in.
 */
interface CaseDevices {
  name(slot: string): string;
  /** The body with every `"slot"` string replaced by the JSON string of its platform name. */
  render(body: string): string;
  /** The platform id of a device the gateway made (by name, through the admin client). */
  idOf(slot: string): Promise<string>;
}

async function withFreshDevices(
  world: IotcWorld,
  use: (devices: CaseDevices) => Promise<void>,
): Promise<void> {
  const names = new Map<string, string>(
    SLOTS.map((slot) => [slot, world.fresh(`gwfuzz-${slot.slice(-1)}`)]),
  );
  for (const name of names.values()) world.expectCreated('device', name); // the gateway creates them
  const name = (slot: string) => names.get(slot) ?? slot;
  try {
    await use({
      name,
      render: (body) =>
        SLOTS.reduce(
          (text, slot: Slot) => text.split(JSON.stringify(slot)).join(JSON.stringify(name(slot))),
          body,
        ),
      async idOf(slot) {
        const record = await world.findDevice(name(slot));
        if (!record) throw new Error(`no device ${name(slot)} on the platform`);
        return record.id;
      },
    });
  } finally {
    for (const platformName of names.values()) await world.removeNow('device', platformName);
  }
}

function describeOutcome(outcome: PublishOutcome): string {
  if (outcome.result !== 'acked') return `ended ${outcome.result}`;
  return `got PUBACK 0x${(outcome.reasonCode ?? 0).toString(16)}${outcome.reasonString ? ` (${outcome.reasonString})` : ''}`;
}

/**
 * Publishes a valid payload for fresh devices: PUBACK success, and every entry stored for its
 * device exactly.
 */
async function publishesAndStoresExactly(
  world: IotcWorld,
  gateway: MqttGateway,
  resource: GatewayResource,
  payload: ValidGatewayPayload,
): Promise<void> {
  await withFreshDevices(world, async (devices) => {
    const body = devices.render(payload.body);
    const sentAt = Date.now();
    const outcome = await gateway.publish(TOPIC[resource], { raw: body });
    const answeredAt = Date.now();
    if (outcome.result !== 'acked' || isFailure(outcome))
      throw new Error(
        `${TOPIC[resource]} ${describeOutcome(outcome)}, expected success; body ${body}`,
      );
    for (const slot of payload.devices) {
      const expected = payload.expected.filter((entry) => entry.device === slot);
      // every named device is created, even one without entries (docs/reference/interfaces.md MQTT
      // rule 2)
      const id = await world.eventually(() => devices.idOf(slot));
      if (expected.length === 0) continue;
      const stored = storedDataOf(world.run.admin, id);
      const keys = expected.map((entry) => entry.key);
      await world.eventually(async () =>
        checkStored(resource, expected, await stored.readBack(resource, keys), {
          sentAt,
          answeredAt,
        }),
      );
    }
  });
}

/**
 * The sentinel: a valid message naming every slot device, stored once the rejected payload was
 * handled.
 */
function sentinelBody(resource: GatewayResource, devices: CaseDevices): string {
  // timestamped, so that a platform reading an entry without ts otherwise (a declared deviation)
  // stores it the same
  const value =
    resource === 'telemetry'
      ? [{ ts: Date.now(), values: { [SENTINEL_KEY]: true } }]
      : { [SENTINEL_KEY]: true };
  return JSON.stringify(Object.fromEntries(SLOTS.map((slot) => [devices.name(slot), value])));
}

/**
 * Publishes a malformed payload for fresh devices: a failure PUBACK (≥ 0x80) and the connection
 * stays usable. A sentinel for the same devices follows; once it is stored, each device holds
 * nothing but the sentinel.
 */
async function rejectsAndStoresNothing(
  world: IotcWorld,
  gateway: MqttGateway,
  resource: GatewayResource,
  payload: MalformedPayload,
): Promise<void> {
  await withFreshDevices(world, async (devices) => {
    const body = devices.render(payload.body);
    const outcome = await gateway.publish(TOPIC[resource], { raw: body });
    if (outcome.result !== 'acked' || (outcome.reasonCode ?? 0) < 0x80) {
      throw new Error(
        `${payload.defect}: ${TOPIC[resource]} ${describeOutcome(outcome)}, expected a failure reason code; body ${JSON.stringify(body)}`,
      );
    }
    const sentinel = await gateway.publish(TOPIC[resource], {
      raw: sentinelBody(resource, devices),
    });
    if (sentinel.result !== 'acked' || isFailure(sentinel))
      throw new Error(`the sentinel ${describeOutcome(sentinel)}`);
    for (const slot of SLOTS) {
      const id = await world.eventually(() => devices.idOf(slot));
      const stored = storedDataOf(world.run.admin, id);
      await world.eventually(async () =>
        checkOnlySentinel(
          await stored.storedKeys(resource),
          { defect: payload.defect, body },
          devices.name(slot),
        ),
      );
    }
  });
}

/**
 * Which valid gateway payloads a step draws: all of them (no phrase), or one of three parts that
 * split them (payloadPart, schemas/arbitrary): telemetry with ts on every entry and booleans and
 * longs only (every ts before the year 10000); with ts on every entry, no string value, and a
 * double or JSON value or a late ts; and the rest (a string value or an entry without ts).
 * Attributes split alike by their values. A target declaring the deviations of KV-02, KV-04, KV-06
 * or GW-TEL-03 still runs the scenarios of the parts those do not touch.
 */
const GATEWAY_PARTS = {
  'with ts before the year 10000 on every entry and booleans and longs only': 'booleans-and-longs',
  'with ts on every entry, no string value, and a double, a JSON value or a ts from the year 10000 on':
    'doubles-or-json',
  'with a string value or an entry without ts': 'rest',
  'with booleans and longs only': 'booleans-and-longs',
  'with a double or JSON value and no string value': 'doubles-or-json',
  'with a string value': 'rest',
} as const;
const GATEWAY_PART_PATTERN = Object.keys(GATEWAY_PARTS)
  .sort((a, b) => b.length - a.length)
  .join('|');

function gatewayArbitrary(
  resource: GatewayResource,
  phrase: string | undefined,
): fc.Arbitrary<ValidGatewayPayload> {
  const part =
    phrase === undefined ? undefined : GATEWAY_PARTS[phrase as keyof typeof GATEWAY_PARTS];
  if (resource === 'attributes')
    return payloadPart(
      (values) => validGatewayAttributes({ deviceNames, ...values }),
      part === 'rest' ? 'strings' : part,
    );
  if (part === undefined) return validGatewayTelemetry({ deviceNames });
  if (part === 'rest')
    return validGatewayTelemetry({ deviceNames }).filter(
      (payload) => hasStringValue(payload) || hasUntimedEntry(payload),
    );
  return payloadPart(
    (values) => validGatewayTelemetry({ deviceNames, everyEntryTimed: true, ...values }),
    part,
  );
}

Then(
  new RegExp(
    `^generated valid gateway (telemetry|attributes)(?: (${GATEWAY_PART_PATTERN}))? published by "([^"]*)" (?:is|are) acknowledged with success and stored exactly for each device$`,
  ),
  { timeout: STEP_TIMEOUT_MS },
  async function (
    this: IotcWorld,
    resource: GatewayResource,
    // cucumber gives an optional group that did not match as null
    phrase: string | null,
    gateway: string,
  ) {
    const driver = this.gateway(gateway).driver;
    const arbitrary = gatewayArbitrary(resource, phrase ?? undefined);
    await runProperty(
      this,
      arbitrary,
      (payload) => publishesAndStoresExactly(this, driver, resource, payload),
      // a part of the payloads draws a third of the cases (three parts: about what one unsplit
      // property drew)
      phrase === null ? DEFAULT_RUNS : Math.ceil(DEFAULT_RUNS / 3),
    );
  },
);

Then(
  /^generated malformed gateway (telemetry|attributes) published by "([^"]*)" (?:gets|get) a failure reason code and nothing is stored$/,
  { timeout: STEP_TIMEOUT_MS },
  async function (this: IotcWorld, resource: GatewayResource, gateway: string) {
    const driver = this.gateway(gateway).driver;
    const arbitrary =
      resource === 'telemetry'
        ? malformedGatewayTelemetry({ deviceNames })
        : malformedGatewayAttributes({ deviceNames });
    await runProperty(
      this,
      arbitrary,
      (payload) => rejectsAndStoresNothing(this, driver, resource, payload),
      DEFAULT_RUNS,
    );
  },
);
