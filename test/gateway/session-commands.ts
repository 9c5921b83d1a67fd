/**
 * The model's commands that publish: connect, disconnect, telemetry, attributes and attribute
 * requests.
 */
import assert from 'node:assert/strict';
import type fc from 'fast-check';
import type { AttributeRequest } from '../../simulators/gateway/mqtt-gateway';
import {
  describeTypedValue,
  parseLossless,
  stringifyLossless,
  typedValueOf,
  typedValuesEqual,
  type TypedValue,
} from '../../lib/kv/values';
import type { DeviceModel, Model, Real } from './session-model';
import {
  assertAcked,
  checkDeliveries,
  becomesConnected,
  wire,
  describeEntries,
  checkTelemetry,
  checkAttributes,
} from './session-checks';

// ---------------------------------------------------------------------------------------------------------------
// Commands

export type Command = fc.AsyncCommand<Model, Real>;

export class Connect implements Command {
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

export class Disconnect implements Command {
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

export class Telemetry implements Command {
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

export class Attributes implements Command {
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

/**
 * docs/reference/interfaces.md's shape (client / shared arrays, either optional) or ThingsBoard's
 * (client: bool, key or keys).
 */
export type RequestShape =
  | { client?: string[]; shared?: string[] }
  | { client: boolean; key: string }
  | { client: boolean; keys: string[] };

export class AttributeRequestCommand implements Command {
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

export function assertSameValue(raw: unknown, expected: TypedValue, what: string): void {
  const actual = typedValueOf(raw);
  assert.ok(
    actual && typedValuesEqual(actual, expected),
    `${what}: ${actual ? describeTypedValue(actual) : 'absent'}, the model says ${describeTypedValue(expected)}`,
  );
}

/**
 * The answer the model predicts: member → found values (a single `value` for one requested key
 * found).
 */
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
