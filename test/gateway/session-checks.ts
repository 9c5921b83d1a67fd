/**
 * What the gateway session model (session-model.ts) checks on the real side: the deliveries after
 * every command (behind a barrier), a device becoming connected, RPC relays, and the whole state
 * read back at the end.
 */
import assert from 'node:assert/strict';
import type { AdminResponse } from '../../src/admin-client';
import { isFailure, type PublishOutcome } from '../../simulators/device/mqtt-connection';
import {
  describeTypedValue,
  typedValuesEqual,
  typedValueToLossless,
  type TypedValue,
} from '../../lib/kv/values';
import type { Model, Real } from './session-model';

export async function deviceId(real: Real, device: number): Promise<string> {
  const record = await real.admin.findDeviceByName(real.names[device]);
  assert.ok(record, `the platform has no device ${real.names[device]}`);
  return record.id;
}

export function assertAcked(outcome: PublishOutcome, what: string): void {
  assert.equal(outcome.result, 'acked', `${what}: the publish ended ${outcome.result}`);
  assert.ok(
    !isFailure(outcome),
    `${what}: PUBACK 0x${(outcome.reasonCode ?? 0).toString(16)} ${outcome.reasonString ?? ''}`,
  );
}

/**
 * A round trip on the gateway's own connection (its device API): whatever the platform published to
 * the gateway before it answered is received by now. For a remote platform that delivers
 * asynchronously, plus quietMs.
 */
async function barrier(real: Real, quiet: boolean): Promise<void> {
  const answer = await real.gateway.device.requestAttributes({ clientKeys: ['iotc-barrier'] });
  assert.ok(answer, 'the barrier attribute request got no answer');
  if (quiet && real.quietMs > 0) await new Promise((resolve) => setTimeout(resolve, real.quietMs));
}

/** After every command: exactly the predicted deliveries, and the connection still open. */
export async function checkDeliveries(model: Model, real: Real, quiet: boolean): Promise<void> {
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

/**
 * The device becomes connected (explicitly or implicitly): created when new, queued RPCs delivered
 * and answered.
 */
export async function becomesConnected(
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
export async function within<T>(promise: Promise<T>, ms: number, failure: string): Promise<T> {
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

/**
 * The gateway answers every RPC with {device, method, params}; the admin caller must get exactly
 * that.
 */
export function rpcReply(request: {
  device: string;
  method: string;
  params: unknown;
}): Record<string, unknown> {
  return { device: request.device, method: request.method, params: request.params };
}

export function assertRpcRelayed(
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

export function wire(
  entries: ReadonlyArray<readonly [string, TypedValue]>,
): Record<string, unknown> {
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

export function describeEntries(entries: ReadonlyArray<readonly [string, TypedValue]>): string {
  return `{${entries.map(([key, value]) => `${JSON.stringify(key)}: ${describeTypedValue(value)}`).join(', ')}}`;
}

// ---------------------------------------------------------------------------------------------------------------
// Read-back checks

export async function checkTelemetry(
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

export async function checkAttributes(
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
