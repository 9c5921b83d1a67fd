/**
 * A fleet of simulated MQTT gateways for load runs and the bench: gateway devices created through
 * the admin API (prefixed names, journaled before they exist), one connection per gateway
 * (load/lean-gateway.ts), and the sub-devices each gateway connects (journaled before the platform
 * can create them). Used by load/mqtt-gateway.ts and bench/run.ts.
 */
import type { AdminClient } from '../src/admin-client';
import type { CleanupJournal } from '../src/target/journal';
import { isFailure, type MqttVersion, type Qos } from '../simulators/device/mqtt-connection';
import { LeanGateway } from './lean-gateway';
import { IotcError } from '../lib/errors';

/** The fleet of a load run (gateways, devices) could not be created on the target. */
export class FleetSetupError extends IotcError {
  readonly code = 'IOTC_FLEET_SETUP';
}

export interface FleetNames {
  /** `<prefix>load-<runId>-g<i>`: the gateway devices. */
  gateways: string[];
  /** `<prefix>load-<runId>-g<i>-d<j>`: the sub-devices of gateway i. */
  devices: string[][];
}

/**
 * The names of a fleet: every one carries the profile's prefix and the run id (cleanup finds them
 * by it). A shard names only its gateways (their global indexes), so the shards together name the
 * whole fleet.
 */
export function fleetNames(
  namePrefix: string,
  runId: string,
  gateways: number,
  devicesPerGateway: number,
  indexes: readonly number[] = Array.from({ length: gateways }, (_, i) => i),
): FleetNames {
  const gatewayNames = indexes.map((i) => `${namePrefix}load-${runId}-g${i}`);
  return {
    gateways: gatewayNames,
    devices: gatewayNames.map((gateway) =>
      Array.from({ length: devicesPerGateway }, (_, j) => `${gateway}-d${j}`),
    ),
  };
}

/**
 * Runs `work` over the items with at most `limit` at once; resolves with the results in order.
 * After a failure no new item starts, the running ones finish, then the first error is thrown
 * (nothing is left running behind it).
 */
export async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (next < items.length && !failure) {
      const index = next++;
      try {
        results[index] = await work(items[index], index);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure) throw failure.error;
  return results;
}

/**
 * Creates the gateway devices (additionalInfo.gateway = true) and returns their access tokens, in
 * order. Each name is journaled before its creation and its id after, so an interrupted run can be
 * cleaned up.
 */
export async function createGatewayDevices(
  admin: AdminClient,
  journal: CleanupJournal,
  names: readonly string[],
  concurrency = 8,
): Promise<string[]> {
  return mapLimited(names, concurrency, async (name) => {
    journal.intend('device', name);
    const record = await admin.createDevice(name, { additionalInfo: { gateway: true } });
    journal.created('device', name, record.id);
    return admin.getDeviceCredentials(record.id);
  });
}

export interface FleetConnectOptions {
  url: string;
  protocolVersion: MqttVersion;
  qos: Qos;
  tls?: { ca?: string; insecureSkipVerify?: boolean };
  ackTimeoutMs?: number;
  /** MQTT keep-alive (default lean-gateway.ts's); 0: none (a target paused for minutes keeps them). */
  keepaliveSec?: number;
}

/**
 * Connects one gateway per token on the load generator's own connection (load/lean-gateway.ts: no
 * downlink subscriptions, a load run only publishes). Closes all on a failure.
 */
export async function connectGateways(
  tokens: readonly string[],
  options: FleetConnectOptions,
  concurrency = 16,
): Promise<LeanGateway[]> {
  const opened: LeanGateway[] = [];
  try {
    return await mapLimited(tokens, concurrency, async (token) => {
      const gateway = await LeanGateway.connect({ ...options, token });
      opened.push(gateway);
      return gateway;
    });
  } catch (error) {
    await closeGateways(opened);
    throw error;
  }
}

/**
 * v1/gateway/connect for every device of the gateway, waiting for each PUBACK
 * (docs/reference/interfaces.md rule 4) before the caller publishes for them; at most `window`
 * connects unacknowledged at once. Throws FleetSetupError on a refusal.
 */
export async function connectSubDevices(
  gateway: LeanGateway,
  names: readonly string[],
  window = 100,
): Promise<void> {
  await mapLimited(names, window, async (name) => {
    const outcome = await gateway.connectDevice(name);
    if (isFailure(outcome))
      throw new FleetSetupError(
        `gateway connect of ${name} failed: ${outcome.result} ${outcome.reasonCode ?? ''} ${outcome.reasonString ?? ''}`.trim(),
      );
  });
}

export async function closeGateways(gateways: readonly LeanGateway[]): Promise<void> {
  await Promise.allSettled(gateways.map((gateway) => gateway.close()));
}
