/**
 * d) Resident memory per simulated sub-device of the reference platform
 * (bench/platform-memory-child.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdminClient } from '../src/admin-client';
import { CleanupJournal } from '../src/target/journal';
import type { LeanGateway } from '../load/lean-gateway';
import {
  closeGateways,
  connectGateways,
  connectSubDevices,
  createGatewayDevices,
  fleetNames,
} from '../load/gateway-fleet';
import { memoryOf, positiveEnv, startPlatformMemoryChild, stopServer } from './children';

export const MEMORY_GATEWAYS = positiveEnv('BENCH_MEMORY_GATEWAYS', 100);
export const MEMORY_DEVICES = positiveEnv('BENCH_MEMORY_DEVICES', 10_000);

/**
 * RSS of the reference platform child (after forced full GCs) once MEMORY_GATEWAYS gateways have
 * connected MEMORY_DEVICES sub-devices between them, minus its RSS once the same gateways were
 * connected with no sub-device, divided by MEMORY_DEVICES. The gateways are created through the
 * admin API and connected with the load profile's fleet code (load/gateway-fleet.ts); every
 * sub-device is connected with v1/gateway/connect, waiting for its PUBACK.
 */
export async function memoryPerSubDevice(): Promise<{
  bytesPerDevice: number;
  heapBytesPerDevice: number;
  line: string;
}> {
  const server = await startPlatformMemoryChild();
  const stateDir = mkdtempSync(join(tmpdir(), 'iotc-bench-journal-'));
  let gateways: LeanGateway[] = [];
  try {
    const httpUrl = server.ready.httpUrl as string;
    const admin = await AdminClient.login(httpUrl, {
      username: 'tenant@thingsboard.org',
      password: 'tenant',
    });
    const perGateway = Math.ceil(MEMORY_DEVICES / MEMORY_GATEWAYS);
    const names = fleetNames('iotc-', 'bench', MEMORY_GATEWAYS, perGateway);
    try {
      const tokens = await createGatewayDevices(
        admin,
        new CleanupJournal(join(stateDir, 'journal.jsonl'), 'bench'),
        names.gateways,
      );
      gateways = await connectGateways(tokens, { url: server.url, protocolVersion: 5, qos: 1 });
    } finally {
      await admin.close();
    }
    const before = await memoryOf(server);
    await Promise.all(gateways.map((gateway, i) => connectSubDevices(gateway, names.devices[i])));
    const after = await memoryOf(server);
    const devices = MEMORY_GATEWAYS * perGateway;
    const bytesPerDevice = (after.rss - before.rss) / devices;
    const heapBytesPerDevice = (after.heapUsed - before.heapUsed) / devices;
    const mib = (bytes: number) => (bytes / 1048576).toFixed(1);
    return {
      bytesPerDevice,
      heapBytesPerDevice,
      line: `      RSS ${mib(before.rss)} MiB with ${MEMORY_GATEWAYS} gateways and no sub-device, ${mib(after.rss)} MiB with ${devices}; heap used ${mib(before.heapUsed)} -> ${mib(after.heapUsed)} MiB`,
    };
  } finally {
    await closeGateways(gateways);
    await stopServer(server);
    rmSync(stateDir, { recursive: true, force: true });
  }
}
