/**
 * A model of one gateway session (interfaces.md "MQTT gateway API", "States and transitions", "Events";
 * platform-facts.md §4.5 where interfaces.md is silent) and the fast-check commands that drive a real target
 * through the gateway driver (MQTT) and the admin client (HTTP) and compare it with the model.
 *
 * What the model holds, per device behind the gateway: whether the platform has it and with which profile,
 * whether it is connected through this gateway, its latest telemetry (value, type, timestamp), its client-side and
 * shared attributes, and the RPCs queued for it. What it predicts: PUBACK success for every valid publish;
 * implicit connect (and creation with the profile default) on telemetry, attributes and attribute requests; an
 * existing device keeps its profile; a disconnect of an unknown device creates nothing; attribute answers in both
 * request shapes; shared-attribute updates and RPCs delivered to the gateway only while the device is connected;
 * an RPC to a device that is not connected is delivered when it connects if it has not expired; the gateway's RPC
 * reply reaches the admin caller. After every command the gateway must have received exactly the deliveries the
 * model predicts (checked behind a barrier: a round trip on the same connection).
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { AdminClient, AdminResponse } from '../../src/admin-client';
import type { MqttGateway, AttributeRequest } from '../../simulators/gateway/mqtt-gateway';
import { isFailure, type PublishOutcome } from '../../simulators/device/mqtt-connection';
import { keyArbitrary, typedValueArbitrary } from '../../schemas/arbitrary';
import {
  describeTypedValue,
  parseLossless,
  stringifyLossless,
  typedValueOf,
  typedValuesEqual,
  typedValueToLossless,
  type TypedValue,
} from '../../lib/kv/values';

// ---------------------------------------------------------------------------------------------------------------
// The model

/** Latest telemetry of a key: the model's ordering timestamp, and what must be read back. */
interface ModelTelemetry {
  value: TypedValue;
  /** Order: explicit timestamps are in the past; server time is later than all of them and grows per command. */
  order: number;
  /** The device's ts, or the window in which the server stamped it. */
  ts: { exact: number } | { from: number; to: number };
}

export interface DeviceModel {
  exists: boolean;
  connected: boolean;
  /** The profile the device was created with ('default' or a type name). */
  profile?: string;
  telemetry: Map<string, ModelTelemetry>;
  client: Map<string, TypedValue>;
  shared: Map<string, TypedValue>;
  /** RPCs sent while the device was not connected, not expired yet: delivered on its next connect. */
  queuedRpcs: QueuedRpc[];
}

export interface Model {
  devices: DeviceModel[];
  /** Deliveries the gateway must have received so far in this run. */
  updatesDelivered: number;
  rpcsDelivered: number;
  /** Grows per command: the order of server-stamped telemetry. */
  commandSeq: number;
}

export function emptyModel(deviceCount: number): Model {
  return {
    devices: Array.from({ length: deviceCount }, () => ({
      exists: false,
      connected: false,
      telemetry: new Map(),
      client: new Map(),
      shared: new Map(),
      queuedRpcs: [],
    })),
    updatesDelivered: 0,
    rpcsDelivered: 0,
    commandSeq: 0,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The real side

interface QueuedRpc {
  method: string;
  params: Record<string, unknown>;
  answer: Promise<AdminResponse>;
}

export interface Real {
  /** The current MQTT connection of the gateway (replaced by a reconnect or a take-over). */
  gateway: MqttGateway;
  /** Opens a new connection of the same gateway (same token), answering RPCs with rpcReply. */
  openGateway(): Promise<MqttGateway>;
  admin: AdminClient;
  /** Platform names of the devices (index = device of the model). */
  names: readonly string[];
  /** Platform names of the device types a connect may name. */
  types: readonly string[];
  /** An RPC timeout long enough that a queued RPC outlives the run; a short one that expires within a command. */
  rpcTimeouts: { queued: number; expiring?: number };
  /** How long a predicted delivery (and the answer it brings) may take. */
  deliveryTimeoutMs: number;
  /** Extra quiet time before concluding that nothing was delivered (0 for the in-process reference). */
  quietMs: number;
  eventually<T>(probe: () => Promise<T>): Promise<T>;
  /** Every RPC answer still open (queued RPCs), so that the run can wait for them. */
  openAnswers: Set<Promise<AdminResponse>>;
}

async function deviceId(real: Real, device: number): Promise<string> {
  const record = await real.admin.findDeviceByName(real.names[device]);
  assert.ok(record, `the platform has no device ${real.names[device]}`);
  return record.id;
}

function assertAcked(outcome: PublishOutcome, what: string): void {
  assert.equal(outcome.result, 'acked', `${what}: the publish ended ${outcome.result}`);
  assert.ok(
    !isFailure(outcome),
    `${what}: PUBACK 0x${(outcome.reasonCode ?? 0).toString(16)} ${outcome.reasonString ?? ''}`,
  );
}

/**
 * A round trip on the gateway's own connection (its device API): whatever the platform published to the gateway
 * before it answered is received by now. For a remote platform that delivers asynchronously, plus quietMs.
 */
async function barrier(real: Real, quiet: boolean): Promise<void> {
  const answer = await real.gateway.device.requestAttributes({ clientKeys: ['iotc-barrier'] });
  assert.ok(answer, 'the barrier attribute request got no answer');
  if (quiet && real.quietMs > 0) await new Promise((resolve) => setTimeout(resolve, real.quietMs));
}

/** After every command: exactly the predicted deliveries, and the connection still open. */
async function checkDeliveries(model: Model, real: Real, quiet: boolean): Promise<void> {
  await barrier(real, quiet);
  assert.equal(real.gateway.connection.closed, false, 'the platform closed the gateway connection');
  const updates = real.gateway.attributeUpdates.map((update) => update.raw);
  assert.equal(
    updates.length,
    model.updatesDelivered,
    `the gateway received ${updates.length} attribute updates, the model predicts ${model.updatesDelivered}: ${updates.join(' ')}`,
  );
  const rpcs = real.gateway.rpcRequests.map(
    (request) => `${request.device}#${request.id} ${request.method}`,
  );
  assert.equal(
    rpcs.length,
    model.rpcsDelivered,
    `the gateway received ${rpcs.length} RPCs, the model predicts ${model.rpcsDelivered}: ${rpcs.join(', ')}`,
  );
}

/** The device becomes connected (explicitly or implicitly): created when new, queued RPCs delivered and answered. */
async function becomesConnected(
  model: Model,
  real: Real,
  device: number,
  type: string | undefined,
): Promise<void> {
  const state = model.devices[device];
  if (!state.exists) {
    state.exists = true;
    state.profile = type ?? 'default';
  }
  const wasConnected = state.connected;
  state.connected = true;
  if (wasConnected) return;
  const queued = state.queuedRpcs.splice(0);
  for (const rpc of queued) {
    const answer = await within(
      rpc.answer,
      real.deliveryTimeoutMs,
      `the RPC ${rpc.method} queued for ${real.names[device]} was not delivered and answered when the device connected`,
    );
    real.openAnswers.delete(rpc.answer);
    model.rpcsDelivered++;
    assertRpcRelayed(answer, real.names[device], rpc);
  }
}

/** The promise's value, or a failure naming what did not happen within `ms`. */
async function within<T>(promise: Promise<T>, ms: number, failure: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>(
        (_, reject) =>
          (timer = setTimeout(
            () => reject(new assert.AssertionError({ message: `${failure} (${ms} ms)` })),
            ms,
          )),
      ),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** The gateway answers every RPC with {device, method, params}; the admin caller must get exactly that. */
export function rpcReply(request: {
  device: string;
  method: string;
  params: unknown;
}): Record<string, unknown> {
  return { device: request.device, method: request.method, params: request.params };
}

function assertRpcRelayed(
  answer: AdminResponse,
  name: string,
  rpc: { method: string; params: Record<string, unknown> },
): void {
  assert.equal(
    answer.status,
    200,
    `the RPC ${rpc.method} to ${name} answered ${answer.status} ${answer.text}`,
  );
  assert.deepEqual(
    JSON.parse(answer.text),
    rpcReply({ device: name, method: rpc.method, params: rpc.params }),
    `the reply relayed to the admin caller of ${rpc.method}`,
  );
}

function wire(entries: ReadonlyArray<readonly [string, TypedValue]>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of entries)
    Object.defineProperty(out, key, {
      value: typedValueToLossless(value),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return out;
}

function describeEntries(entries: ReadonlyArray<readonly [string, TypedValue]>): string {
  return `{${entries.map(([key, value]) => `${JSON.stringify(key)}: ${describeTypedValue(value)}`).join(', ')}}`;
}

// ---------------------------------------------------------------------------------------------------------------
// Read-back checks

async function checkTelemetry(
  model: Model,
  real: Real,
  device: number,
  keys: readonly string[],
): Promise<void> {
  const state = model.devices[device];
  const id = await deviceId(real, device);
  await real.eventually(async () => {
    const stored = await real.admin.latestTelemetry(id, keys);
    for (const key of keys) {
      const expected = state.telemetry.get(key)!;
      const actual = stored.get(key);
      assert.ok(
        actual?.value,
        `${real.names[device]}: telemetry ${JSON.stringify(key)} not stored`,
      );
      assert.ok(
        typedValuesEqual(actual.value, expected.value),
        `${real.names[device]}: telemetry ${JSON.stringify(key)} is ${describeTypedValue(actual.value)}, the model says ${describeTypedValue(expected.value)}`,
      );
      if ('exact' in expected.ts)
        assert.equal(
          actual.ts,
          expected.ts.exact,
          `${real.names[device]}: telemetry ${JSON.stringify(key)} ts`,
        );
      else
        assert.ok(
          actual.ts >= expected.ts.from - 1000 && actual.ts <= expected.ts.to + 1000,
          `${real.names[device]}: telemetry ${JSON.stringify(key)} ts ${actual.ts} is not a server time of its publish`,
        );
    }
  });
}

async function checkAttributes(
  model: Model,
  real: Real,
  device: number,
  scope: 'CLIENT_SCOPE' | 'SHARED_SCOPE',
): Promise<void> {
  const expected =
    scope === 'CLIENT_SCOPE' ? model.devices[device].client : model.devices[device].shared;
  const id = await deviceId(real, device);
  await real.eventually(async () => {
    const stored = await real.admin.attributes(id, scope);
    assert.deepEqual(
      [...stored.keys()].sort(),
      [...expected.keys()].sort(),
      `${real.names[device]}: ${scope} keys`,
    );
    for (const [key, value] of expected) {
      const actual = stored.get(key)?.value;
      assert.ok(
        actual && typedValuesEqual(actual, value),
        `${real.names[device]}: ${scope} ${JSON.stringify(key)} is ${actual ? describeTypedValue(actual) : 'absent'}, the model says ${describeTypedValue(value)}`,
      );
    }
  });
}

/** Everything the model holds about every device, read back (at the end of a run). */
export async function checkWholeState(model: Model, real: Real): Promise<void> {
  for (const [device, state] of model.devices.entries()) {
    const record = await real.admin.findDeviceByName(real.names[device]);
    assert.equal(
      record !== undefined,
      state.exists,
      `${real.names[device]} exists: the model says ${state.exists}`,
    );
    if (!record) continue;
    assert.equal(record.type, state.profile, `${real.names[device]}: profile`);
    assert.deepEqual(
      (await real.admin.telemetryKeys(record.id)).sort(),
      [...state.telemetry.keys()].sort(),
      `${real.names[device]}: telemetry keys`,
    );
    if (state.telemetry.size)
      await checkTelemetry(model, real, device, [...state.telemetry.keys()]);
    await checkAttributes(model, real, device, 'CLIENT_SCOPE');
    await checkAttributes(model, real, device, 'SHARED_SCOPE');
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Commands

type Command = fc.AsyncCommand<Model, Real>;

class Connect implements Command {
  constructor(
    readonly device: number,
    readonly typeIndex: number | undefined,
  ) {}
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    const type = this.typeIndex === undefined ? undefined : real.types[this.typeIndex];
    assertAcked(
      await real.gateway.connectDevice(real.names[this.device], type),
      `connect ${real.names[this.device]}`,
    );
    await becomesConnected(model, real, this.device, type);
    const record = await real.eventually(async () => {
      const found = await real.admin.findDeviceByName(real.names[this.device]);
      assert.ok(found, `the connect did not create ${real.names[this.device]}`);
      return found;
    });
    assert.equal(
      record.type,
      model.devices[this.device].profile,
      `${real.names[this.device]} has the profile it was created with`,
    );
    await checkDeliveries(model, real, false);
  }
  toString = () =>
    `connect(d${this.device}${this.typeIndex === undefined ? '' : `, type${this.typeIndex}`})`;
}

class Disconnect implements Command {
  constructor(readonly device: number) {}
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    assertAcked(
      await real.gateway.disconnectDevice(real.names[this.device]),
      `disconnect ${real.names[this.device]}`,
    );
    model.devices[this.device].connected = false;
    if (!model.devices[this.device].exists) {
      assert.equal(
        await real.admin.findDeviceByName(real.names[this.device]),
        undefined,
        `a disconnect of the unknown ${real.names[this.device]} created it`,
      );
    }
    await checkDeliveries(model, real, false);
  }
  toString = () => `disconnect(d${this.device})`;
}

interface TelemetryEntryCommand {
  ts?: number;
  values: Array<[string, TypedValue]>;
}

class Telemetry implements Command {
  constructor(
    readonly device: number,
    readonly entries: TelemetryEntryCommand[],
  ) {}
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    const name = real.names[this.device];
    const body = stringifyLossless({
      [name]: this.entries.map((entry) =>
        entry.ts === undefined
          ? { values: wire(entry.values) }
          : { ts: entry.ts, values: wire(entry.values) },
      ),
    });
    const from = Date.now();
    const outcome = await real.gateway.publish('v1/gateway/telemetry', { raw: body });
    const to = Date.now();
    assertAcked(outcome, `telemetry of ${name}`);
    await becomesConnected(model, real, this.device, undefined);
    const serverOrder = Number.MAX_SAFE_INTEGER / 2 + ++model.commandSeq;
    const state = model.devices[this.device];
    for (const entry of this.entries) {
      const order = entry.ts ?? serverOrder;
      for (const [key, value] of entry.values) {
        const latest = state.telemetry.get(key);
        // the latest value is the one with the greatest ts; at equal ts the later write wins
        if (!latest || latest.order <= order)
          state.telemetry.set(key, {
            value,
            order,
            ts: entry.ts === undefined ? { from, to } : { exact: entry.ts },
          });
      }
    }
    const keys = [...new Set(this.entries.flatMap((entry) => entry.values.map(([key]) => key)))];
    if (keys.length) await checkTelemetry(model, real, this.device, keys);
    await checkDeliveries(model, real, false);
  }
  toString = () =>
    `telemetry(d${this.device}, [${this.entries.map((entry) => `${entry.ts ?? 'now'}: ${describeEntries(entry.values)}`).join('; ')}])`;
}

class Attributes implements Command {
  constructor(
    readonly device: number,
    readonly values: Array<[string, TypedValue]>,
  ) {}
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    const name = real.names[this.device];
    assertAcked(
      await real.gateway.publish('v1/gateway/attributes', {
        raw: stringifyLossless({ [name]: wire(this.values) }),
      }),
      `attributes of ${name}`,
    );
    await becomesConnected(model, real, this.device, undefined);
    for (const [key, value] of this.values) model.devices[this.device].client.set(key, value);
    await checkAttributes(model, real, this.device, 'CLIENT_SCOPE');
    await checkDeliveries(model, real, false);
  }
  toString = () => `attributes(d${this.device}, ${describeEntries(this.values)})`;
}

/** interfaces.md's shape (client / shared arrays, either optional) or ThingsBoard's (client: bool, key or keys). */
type RequestShape =
  | { client?: string[]; shared?: string[] }
  | { client: boolean; key: string }
  | { client: boolean; keys: string[] };

class AttributeRequestCommand implements Command {
  constructor(
    readonly device: number,
    readonly request: RequestShape,
  ) {}
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    const name = real.names[this.device];
    const { publish, response } = await real.gateway.requestAttributes({
      device: name,
      ...this.request,
    } as AttributeRequest);
    assertAcked(publish, `attribute request for ${name}`);
    await becomesConnected(model, real, this.device, undefined);
    const expected = expectedAnswer(model.devices[this.device], this.request);
    const answer = parseLossless(response.raw) as Record<string, unknown>;
    assert.equal(answer.device, name, `the answer ${response.raw} names its device`);
    const members = Object.keys(answer)
      .filter((member) => member !== 'id' && member !== 'device')
      .sort();
    assert.deepEqual(
      members,
      Object.keys(expected).sort(),
      `answer members of ${response.raw}, request ${JSON.stringify(this.request)}`,
    );
    for (const [member, values] of Object.entries(expected)) {
      if (member === 'value') {
        assertSameValue(answer.value, values as TypedValue, `value of ${response.raw}`);
        continue;
      }
      const got = answer[member] as Record<string, unknown>;
      const wanted = values as Map<string, TypedValue>;
      assert.deepEqual(
        Object.keys(got).sort(),
        [...wanted.keys()].sort(),
        `${member} of ${response.raw}, request ${JSON.stringify(this.request)}`,
      );
      for (const [key, value] of wanted)
        assertSameValue(got[key], value, `${member}.${key} of ${response.raw}`);
    }
    await checkDeliveries(model, real, false);
  }
  toString = () => `attributeRequest(d${this.device}, ${JSON.stringify(this.request)})`;
}

function assertSameValue(raw: unknown, expected: TypedValue, what: string): void {
  const actual = typedValueOf(raw);
  assert.ok(
    actual && typedValuesEqual(actual, expected),
    `${what}: ${actual ? describeTypedValue(actual) : 'absent'}, the model says ${describeTypedValue(expected)}`,
  );
}

/** The answer the model predicts: member → found values (a single `value` for one requested key found). */
function expectedAnswer(
  state: DeviceModel,
  request: RequestShape,
): Record<string, Map<string, TypedValue> | TypedValue> {
  const pick = (scope: Map<string, TypedValue>, keys: readonly string[] | undefined) =>
    new Map([...scope].filter(([key]) => keys === undefined || keys.includes(key)));
  if (typeof request.client === 'boolean') {
    const scope = request.client ? state.client : state.shared;
    const keys = 'key' in request ? [request.key] : (request as { keys: string[] }).keys;
    const found = pick(scope, keys);
    if (keys.length === 1 && found.size === 1) return { value: [...found.values()][0] };
    return found.size > 0 ? { values: found } : {};
  }
  const { client, shared } = request as { client?: string[]; shared?: string[] };
  const both = client === undefined && shared === undefined;
  const out: Record<string, Map<string, TypedValue>> = {};
  if (both || client) out.client = pick(state.client, client);
  if (both || shared) out.shared = pick(state.shared, shared);
  return out;
}

class SharedUpdate implements Command {
  constructor(
    readonly device: number,
    readonly values: Array<[string, TypedValue]>,
  ) {}
  check = (model: Readonly<Model>) => model.devices[this.device].exists;
  async run(model: Model, real: Real): Promise<void> {
    const name = real.names[this.device];
    const before = real.gateway.attributeUpdates.length;
    await real.admin.saveAttributes(
      await deviceId(real, this.device),
      'SHARED_SCOPE',
      stringifyLossless(wire(this.values)),
    );
    for (const [key, value] of this.values) model.devices[this.device].shared.set(key, value);
    const connected = model.devices[this.device].connected;
    if (connected) {
      model.updatesDelivered++;
      const update =
        real.gateway.attributeUpdates[before] ??
        (await real.gateway.nextAttributeUpdate(name, real.deliveryTimeoutMs));
      assert.ok(update, `no shared-attribute update for the connected ${name} reached the gateway`);
      assert.equal(update.device, name);
      const data = (parseLossless(update.raw) as { data: Record<string, unknown> }).data;
      assert.deepEqual(
        Object.keys(data).sort(),
        this.values.map(([key]) => key).sort(),
        `the update ${update.raw} holds exactly the changed keys`,
      );
      for (const [key, value] of this.values)
        assertSameValue(data[key], value, `update ${update.raw}: ${key}`);
    }
    await checkAttributes(model, real, this.device, 'SHARED_SCOPE');
    await checkDeliveries(model, real, !connected);
  }
  toString = () => `adminSharedUpdate(d${this.device}, ${describeEntries(this.values)})`;
}

class Rpc implements Command {
  constructor(
    readonly device: number,
    readonly method: string,
    readonly params: Record<string, unknown>,
  ) {}
  check = (model: Readonly<Model>) => model.devices[this.device].exists;
  async run(model: Model, real: Real): Promise<void> {
    const state = model.devices[this.device];
    const answer = real.admin.rpc(await deviceId(real, this.device), 'twoway', {
      method: this.method,
      params: this.params,
      timeout: real.rpcTimeouts.queued,
    });
    real.openAnswers.add(answer);
    if (state.connected) {
      model.rpcsDelivered++;
      assertRpcRelayed(
        await within(
          answer,
          real.deliveryTimeoutMs,
          `the RPC ${this.method} to the connected ${real.names[this.device]} was not answered`,
        ),
        real.names[this.device],
        this,
      );
      real.openAnswers.delete(answer);
    } else {
      state.queuedRpcs.push({ method: this.method, params: this.params, answer });
    }
    await checkDeliveries(model, real, !state.connected);
  }
  toString = () => `adminRpc(d${this.device}, ${this.method}, ${JSON.stringify(this.params)})`;
}

/** An RPC to a device that is not connected, with a timeout that ends within the command: never delivered. */
class ExpiringRpc implements Command {
  constructor(readonly device: number) {}
  check = (model: Readonly<Model>) =>
    model.devices[this.device].exists && !model.devices[this.device].connected;
  async run(model: Model, real: Real): Promise<void> {
    assert.ok(real.rpcTimeouts.expiring, 'expiring RPCs need a short RPC timeout');
    const answer = await real.admin.rpc(await deviceId(real, this.device), 'twoway', {
      method: 'expiring',
      params: {},
      timeout: real.rpcTimeouts.expiring,
    });
    assert.ok(
      answer.status >= 400,
      `an RPC to the disconnected ${real.names[this.device]} answered ${answer.status} ${answer.text}`,
    );
    await checkDeliveries(model, real, true);
  }
  toString = () => `adminExpiringRpc(d${this.device})`;
}

/**
 * The gateway's MQTT connection ends and a new one opens: cleanly (DISCONNECT, then connect) or by take-over (the
 * new connection comes first; the older one gets DISCONNECT 0x8E). Either way no device is connected through the
 * new session until it connects it again, and deliveries start from zero on the new connection.
 */
class GatewayReconnect implements Command {
  constructor(readonly takeOver: boolean) {}
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    const old = real.gateway;
    if (!this.takeOver) await old.close();
    real.gateway = await real.openGateway();
    if (this.takeOver) {
      const closed = await Promise.race([
        old.connection.whenClosed().then(() => true),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 5000)),
      ]);
      assert.ok(closed, 'the older session of the gateway stayed open after the take-over');
      assert.equal(
        old.connection.disconnectReason,
        0x8e,
        'the older session gets DISCONNECT 0x8E (session taken over)',
      );
    }
    for (const state of model.devices) state.connected = false;
    model.updatesDelivered = 0;
    model.rpcsDelivered = 0;
    await checkDeliveries(model, real, false);
  }
  toString = () => (this.takeOver ? 'gatewayTakeOver()' : 'gatewayReconnect()');
}

// ---------------------------------------------------------------------------------------------------------------
// Command arbitraries

export interface CommandSettings {
  devices: number;
  types: number;
  /** Include ExpiringRpc (needs a target whose minimum RPC timeout is short). */
  expiringRpcs: boolean;
}

/** A few keys per scope, so that writes overwrite each other and requests find some keys and miss others. */
const TELEMETRY_KEYS = ['temperature', 'count', 'mode'];
const CLIENT_KEYS = ['fw', 'serial', 'room'];
const SHARED_KEYS = ['period', 'target', 'room'];

export function commandArbitraries(settings: CommandSettings): Array<fc.Arbitrary<Command>> {
  const device = fc.nat({ max: settings.devices - 1 });
  const entries = (keys: string[]) =>
    fc.uniqueArray(
      fc.tuple(
        fc.oneof(
          { weight: 5, arbitrary: fc.constantFrom(...keys) },
          { weight: 1, arbitrary: keyArbitrary() },
        ),
        typedValueArbitrary(),
      ),
      { selector: ([key]) => key, minLength: 1, maxLength: 3 },
    );
  // explicit timestamps lie in the past (2020..2023), so that server-stamped entries are always later
  const ts = fc.integer({ min: 1_577_836_800_000, max: 1_700_000_000_000 });
  const telemetryEntry = fc
    .record({ ts: fc.option(ts, { nil: undefined }), values: entries(TELEMETRY_KEYS) })
    .map((entry) => (entry.ts === undefined ? { values: entry.values } : entry));
  const requestKeys = fc.uniqueArray(fc.constantFrom(...CLIENT_KEYS, ...SHARED_KEYS, 'absent'), {
    maxLength: 3,
  });
  const request: fc.Arbitrary<RequestShape> = fc.oneof(
    fc.record({ client: requestKeys, shared: requestKeys }, { requiredKeys: [] }),
    fc.record({
      client: fc.boolean(),
      key: fc.constantFrom(...CLIENT_KEYS, ...SHARED_KEYS, 'absent'),
    }),
    fc.record({ client: fc.boolean(), keys: requestKeys.filter((keys) => keys.length > 0) }),
  );
  const commands: Array<fc.Arbitrary<Command>> = [
    fc
      .tuple(device, fc.option(fc.nat({ max: settings.types - 1 }), { nil: undefined }))
      .map(([d, type]) => new Connect(d, type)),
    device.map((d) => new Disconnect(d)),
    fc
      .tuple(device, fc.array(telemetryEntry, { minLength: 1, maxLength: 3 }))
      .map(([d, list]) => new Telemetry(d, list)),
    fc.tuple(device, entries(CLIENT_KEYS)).map(([d, values]) => new Attributes(d, values)),
    fc.tuple(device, request).map(([d, shape]) => new AttributeRequestCommand(d, shape)),
    fc.tuple(device, entries(SHARED_KEYS)).map(([d, values]) => new SharedUpdate(d, values)),
    fc
      .tuple(
        device,
        fc.constantFrom('setMode', 'reboot', 'getState'),
        fc.dictionary(
          fc.constantFrom('a', 'b', 'level'),
          fc.oneof(fc.integer(), fc.string({ maxLength: 6 }), fc.boolean()),
          { maxKeys: 2 },
        ),
      )
      .map(([d, method, params]) => new Rpc(d, method, { ...params })),
  ];
  commands.push(fc.boolean().map((takeOver) => new GatewayReconnect(takeOver)));
  if (settings.expiringRpcs) commands.push(device.map((d) => new ExpiringRpc(d)));
  return commands;
}
