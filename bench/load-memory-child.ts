/**
 * The generator-memory child of bench/load-generator-bench.ts: runs of the mqtt-gateway load
 * profile against a bare MQTT URL (the bench's sink), one after the other in this process only, so
 * its resident memory is the generator's: <gateways> × each count of devices per gateway, smallest
 * first. In one process, each run reuses what the ones before left to the allocator and warmed
 * (code, JIT, buffers): the differences are what the extra devices hold. When a run's publishing is
 * over (the profile's `sent ...` line), while every gateway, device state and the recorder are
 * still held, it reads its memory after the GC settled (settled-memory.ts: read at once after
 * `gc()`, until 2026-11-28, the pages V8's background threads had not yet given back made the last
 * full bench's fit R² 0.872). Prints `{"readings": [...]}`, each
 * `{"devices", "rss", "heapUsed", "youngGeneration", "sent"}` (devices: in all). Arguments:
 * <mqtt url> <gateways> <devices per gateway, comma-separated>; the tokens (any, the sink accepts
 * all) in BENCH_SINK_TOKENS. Needs --expose-gc.
 */
import { runLoadProfile } from '../load/contract';
import { mqttGatewayProfile } from '../load/mqtt-gateway';
import { type SettledMemory, settledMemory } from './settled-memory';

async function measured(mqttUrl: string, gateways: number, devices: number) {
  let memory: SettledMemory | undefined;
  const { report } = await runLoadProfile(
    mqttGatewayProfile,
    {
      gateways,
      devicesPerGateway: devices,
      // the same modest load whatever the fleet's size: the difference between two runs is the
      // devices' own cost
      rate: 2000,
      rateOf: 'total',
      qos: 1,
      protocolVersion: 5,
      durationS: 2,
      mqttUrl,
      gatewayTokenEnv: 'BENCH_SINK_TOKENS',
    },
    {
      log: (line) => {
        // synchronous: the profile closes its gateways once this returns
        if (line.startsWith('sent ')) memory = settledMemory();
      },
      progress: () => {},
    },
  );
  if (!memory) throw new Error('the run never reported its end of publishing');
  return { devices: gateways * devices, ...memory, sent: report.totals.sent };
}

async function main(): Promise<void> {
  const [mqttUrl, gateways, counts] = process.argv.slice(2);
  const readings = [];
  for (const devices of counts.split(',').map(Number))
    readings.push(await measured(mqttUrl, Number(gateways), devices));
  process.stdout.write(`${JSON.stringify({ readings })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
