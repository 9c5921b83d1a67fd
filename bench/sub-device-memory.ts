/**
 * d) Memory per simulated sub-device of the reference platform (bench/platform-memory-child.ts).
 *
 * MEMORY_GATEWAYS gateways (created through the admin API, connected with the load profile's fleet
 * code, load/gateway-fleet.ts) connect MEMORY_DEVICES sub-devices between them with
 * v1/gateway/connect, each waiting for its PUBACK, in SUB_DEVICE_POINTS equal steps; after each
 * step the child forces full GCs and reports its RSS and heap. Bytes per sub-device are the
 * least-squares slope through those readings (bench/slope.ts), RSS and heap each, so the fixed
 * costs (code compiled on the first connects, the gateways' sessions) cancel out; the step from
 * the reading with no sub-device to the first point is printed beside them. A slope that is not
 * positive, readings that do not grow, or readings scattered about the line (R² < 0.9) give no
 * verdict (INFO, with the reason): the allocator, not the sub-devices, decided them.
 *
 * BENCH_HEAP_SNAPSHOTS=<folder> also writes a heap snapshot at the first and the last point
 * (`first.heapsnapshot`, `last.heapsnapshot`): their difference by constructor is what each
 * sub-device retains (bench/heap-diff.ts prints it).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
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
import {
  heapSnapshotOf,
  memoryOf,
  positiveEnv,
  startPlatformMemoryChild,
  stopServer,
} from './children';
import { fitSlope, type SlopeFit } from './slope';

export const MEMORY_GATEWAYS = positiveEnv('BENCH_MEMORY_GATEWAYS', 100);
export const MEMORY_DEVICES = positiveEnv('BENCH_MEMORY_DEVICES', 10_000);
/** Readings with sub-devices connected: each a 1/SUB_DEVICE_POINTS share of MEMORY_DEVICES more. */
export const SUB_DEVICE_POINTS = positiveEnv('BENCH_SUB_DEVICE_POINTS', 4);

export interface SubDeviceMemory {
  /** The fit of the RSS readings: bytes per sub-device, R², why no verdict if so. */
  rss: SlopeFit;
  /** The fit of the heap-used readings. */
  heap: SlopeFit;
  lines: string[];
}

export async function memoryPerSubDevice(): Promise<SubDeviceMemory> {
  const server = await startPlatformMemoryChild();
  const stateDir = mkdtempSync(join(tmpdir(), 'iotc-bench-journal-'));
  const snapshots = process.env.BENCH_HEAP_SNAPSHOTS
    ? resolve(process.env.BENCH_HEAP_SNAPSHOTS)
    : undefined;
  if (snapshots) mkdirSync(snapshots, { recursive: true });
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
      gateways = await connectGateways(tokens, {
        url: server.url,
        protocolVersion: 5,
        qos: 1,
        // a heap snapshot stops the platform for minutes on a busy machine: no keep-alive then
        keepaliveSec: snapshots ? 0 : undefined,
      });
    } finally {
      await admin.close();
    }
    const idle = await memoryOf(server);
    const readings: Array<{ devices: number; rss: number; heapUsed: number }> = [];
    const perStep = Math.ceil(perGateway / SUB_DEVICE_POINTS);
    for (let point = 1; point <= SUB_DEVICE_POINTS; point++) {
      const from = (point - 1) * perStep;
      const to = Math.min(point * perStep, perGateway);
      await Promise.all(
        gateways.map((gateway, i) => connectSubDevices(gateway, names.devices[i].slice(from, to))),
      );
      const memory = await memoryOf(server);
      readings.push({ devices: MEMORY_GATEWAYS * to, ...memory });
      if (snapshots && (point === 1 || point === SUB_DEVICE_POINTS))
        await heapSnapshotOf(
          server,
          join(snapshots, point === 1 ? 'first.heapsnapshot' : 'last.heapsnapshot'),
        );
    }
    const rss = fitSlope(readings.map(({ devices, rss: y }) => ({ x: devices, y })));
    const heap = fitSlope(readings.map(({ devices, heapUsed: y }) => ({ x: devices, y })));
    const mib = (bytes: number) => (bytes / 1048576).toFixed(1);
    const first = readings[0];
    return {
      rss,
      heap,
      lines: [
        `      ${MEMORY_GATEWAYS} gateways, no sub-device: RSS ${mib(idle.rss)} MiB, heap ${mib(idle.heapUsed)} MiB; then ${readings
          .map(
            (reading) => `${reading.devices}: ${mib(reading.rss)} / ${mib(reading.heapUsed)} MiB`,
          )
          .join(', ')} (RSS / heap)`,
        `      slope through the ${readings.length} points: RSS ${Math.round(rss.slope)} bytes (R² ${rss.r2.toFixed(3)}), heap ${Math.round(heap.slope)} bytes (R² ${heap.r2.toFixed(3)}); the first step from none: RSS ${Math.round((first.rss - idle.rss) / first.devices)}, heap ${Math.round((first.heapUsed - idle.heapUsed) / first.devices)} bytes${snapshots ? `; heap snapshots in ${snapshots}` : ''}`,
      ],
    };
  } finally {
    await closeGateways(gateways);
    await stopServer(server);
    rmSync(stateDir, { recursive: true, force: true });
  }
}
