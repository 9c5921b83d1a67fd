/**
 * The platform's answer to a server-side RPC call, judged with what the device's MQTT connection
 * was meanwhile (shared by the RPC steps of the HTTP and MQTT device APIs).
 */
import assert from 'node:assert/strict';
import type { IotcWorld } from '../world';
import { DEVICE_TOPICS } from '../../simulators/device/mqtt-device';
import { MqttConnectionError } from '../../simulators/device/mqtt-connection';

/** When each scenario's RPC call to a device was sent (Date.now()), by the device's local name. */
const callsSent = new WeakMap<IotcWorld, Map<string, number>>();

/** Notes that the scenario's RPC call to `local` leaves now. */
export function noteRpcCallSent(world: IotcWorld, local: string): void {
  let sent = callsSent.get(world);
  if (!sent) callsSent.set(world, (sent = new Map()));
  sent.set(local, Date.now());
}

/**
 * Asserts the status of the platform's RPC call to `local`. When it differs and `local` has an MQTT
 * connection in the scenario, the message says what that connection was when the answer came
 * (open and subscribed, refused, closed by the target and how): an RPC that expired undelivered
 * (409) or unanswered (408) is otherwise silent about why. A connection the network broke is not
 * the target's answer: the step then fails through that transport error (INCONCLUSIVE after its
 * retry, steps/support/transport.ts).
 */
export function assertRpcStatus(
  world: IotcWorld,
  local: string,
  answer: { status: number },
  status: number,
  shown: string,
): void {
  if (answer.status === status) return;
  const connection = world.gateways.get(local)?.driver.connection;
  const state = connection?.describe(DEVICE_TOPICS.rpcRequest, callsSent.get(world)?.get(local));
  if (connection?.socketError)
    throw new MqttConnectionError(`the RPC call answered ${shown}, and ${state}`, {
      cause: connection.socketError,
    });
  assert.equal(
    answer.status,
    status,
    `the RPC call answered ${shown}${state ? `; the device's ${state.replace(/^the /, '')}` : ''}`,
  );
}
