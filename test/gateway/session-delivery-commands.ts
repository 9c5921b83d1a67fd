/**
 * The model's commands whose effect is a delivery to the gateway: shared-attribute updates, RPCs
 * (queued or expiring), and a reconnect or take-over of the gateway.
 */
import assert from 'node:assert/strict';
import { parseLossless, stringifyLossless, type TypedValue } from '../../lib/kv/values';
import type { Model, Real } from './session-model';
import {
  deviceId,
  checkDeliveries,
  within,
  assertRpcRelayed,
  wire,
  describeEntries,
  checkAttributes,
} from './session-checks';
import { type Command, assertSameValue } from './session-commands';

export class SharedUpdate implements Command {
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

export class Rpc implements Command {
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

/**
 * An RPC to a device that is not connected, with a timeout that ends within the command: never
 * delivered.
 */
export class ExpiringRpc implements Command {
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
 * The gateway's MQTT connection ends and a new one opens: cleanly (DISCONNECT, then connect) or by
 * take-over (the new connection comes first; the older one gets DISCONNECT 0x8E). Either way no
 * device is connected through the new session until it connects it again, and deliveries start from
 * zero on the new connection.
 */
export class GatewayReconnect implements Command {
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
