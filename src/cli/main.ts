/** The `iotc` command line. */
import { Command, InvalidArgumentError } from 'commander';
import { runConformance } from './run';
import { simulate, type SimulateOptions } from './simulate';
import { cleanupTarget } from './cleanup';
import { mergeCommand } from './report';
import { probeReportRateLimit } from '../../load/report-rate-limit';
import { mqttGatewayCommand, type MqttGatewayCommandOptions } from './load-mqtt-gateway';

function port(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0 || parsed > 65535)
    throw new InvalidArgumentError('a port is an integer from 0 to 65535');
  return parsed;
}

function positiveInteger(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed <= 0)
    throw new InvalidArgumentError('expected a positive integer');
  return parsed;
}

function positiveNumber(value: string): number {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0)
    throw new InvalidArgumentError('expected a positive number');
  return parsed;
}

function qos(value: string): 0 | 1 {
  if (value !== '0' && value !== '1') throw new InvalidArgumentError('QoS is 0 or 1');
  return value === '1' ? 1 : 0;
}

function mqttVersion(value: string): 4 | 5 {
  if (value === '5') return 5;
  if (value === '3.1.1' || value === '4') return 4;
  throw new InvalidArgumentError('MQTT version is 3.1.1 or 5');
}

function duration(value: string): number {
  const parsed = positiveNumber(value);
  if (parsed > 3600)
    throw new InvalidArgumentError('at most 3600 seconds: a load run stops by itself');
  return parsed;
}

const program = new Command()
  .name('iotc')
  .description('Conformance harness and reference simulator for ThingsBoard-style IoT platforms')
  .version((require('../../package.json') as { version: string }).version);

program
  .command('run')
  .description('run the conformance suite against a target and write reports')
  .option(
    '-t, --target <profile>',
    'built-in profile name or target profile JSON file',
    process.env.IOTC_TARGET || 'embedded',
  )
  .option(
    '--tags <expression>',
    'cucumber tag expression selecting scenarios (e.g. "@http-device-api")',
  )
  .option('-r, --reports <dir>', 'where reports are written', 'reports')
  .option(
    '-p, --parallel <n>',
    'scenarios run in n worker processes at once (each embedded worker starts its own reference)',
    positiveInteger,
    1,
  )
  .argument('[features...]', 'feature files or folders (default: all)')
  .action(
    async (
      features: string[],
      options: { target: string; tags?: string; reports: string; parallel: number },
    ) => {
      process.exitCode = await runConformance({
        target: options.target,
        tags: options.tags,
        reportsDir: options.reports,
        paths: features,
        parallel: options.parallel,
      });
    },
  );

const load = program.command('load').description('load profiles against a target');
load
  .command('report-rate-limit')
  .description(
    'find the analytics report limiter (pool size, queue capacity) with rising concurrency; fail when it differs from the profile',
  )
  .option(
    '-t, --target <profile>',
    'built-in profile name or target profile JSON file',
    process.env.IOTC_TARGET || 'embedded',
  )
  .option('-r, --reports <dir>', 'where reports/load/ is written', 'reports')
  .option(
    '--max-concurrency <n>',
    'highest concurrency tried (default: declared pool + queue + 3)',
    positiveInteger,
  )
  .action(async (options: { target: string; reports: string; maxConcurrency?: number }) => {
    const { exitCode } = await probeReportRateLimit({
      target: options.target,
      reportsDir: options.reports,
      maxConcurrency: options.maxConcurrency,
    });
    process.exitCode = exitCode;
  });

load
  .command('mqtt-gateway')
  .description(
    'G gateways x D devices publish telemetry over MQTT for a bounded time; sent, acknowledged, stored, lost, duplicated, latency',
  )
  .option(
    '-t, --target <profile>',
    'built-in profile name or target profile JSON file',
    process.env.IOTC_TARGET || 'embedded',
  )
  .option(
    '--mqtt-url <url>',
    'a bare MQTT target instead of a profile (no admin API: nothing is created, stored counts are not measured)',
  )
  .option(
    '--gateway-token-env <VAR>',
    'with --mqtt-url: environment variable holding the gateway access tokens, comma-separated, one per gateway',
  )
  .option('-g, --gateways <n>', 'gateways', positiveInteger, 10)
  .option('-d, --devices <n>', 'devices per gateway', positiveInteger, 10)
  .option('--rate <n>', 'messages per second per gateway', positiveNumber, 100)
  .option(
    '--total-rate <n>',
    'messages per second for the whole fleet (instead of --rate)',
    positiveNumber,
  )
  .option('--qos <0|1>', 'QoS of the telemetry publishes', qos, 1 as const)
  .option('--mqtt-version <3.1.1|5>', 'MQTT protocol version', mqttVersion, 5 as const)
  .option('--duration <s>', 'seconds of publishing (at most 3600)', duration, 10)
  .option('--payload-bytes <n>', 'pad each telemetry message to this many bytes', positiveInteger)
  .option('--window <n>', 'unanswered publishes a gateway keeps at most', positiveInteger, 1000)
  .option(
    '--sample <n>',
    'read back at most this many devices, spread over the fleet (default: all up to 1000)',
    positiveInteger,
  )
  .option('-r, --reports <dir>', 'where reports/load/ is written', 'reports')
  .action(async (options: MqttGatewayCommandOptions) => {
    process.exitCode = await mqttGatewayCommand(options);
  });

program
  .command('report')
  .description('work with conformance reports')
  .command('merge')
  .description(
    'merge the conformance reports of runs split across machines (exit non-zero on any FAIL)',
  )
  .argument('<parts...>', 'report folders or conformance.json files')
  .requiredOption('-o, --out <dir>', 'where the merged reports are written')
  .action((parts: string[], options: { out: string }) => {
    process.exitCode = mergeCommand(parts, options.out);
  });

program
  .command('validate')
  .description(
    'check a REST connector configuration (rest.json): schema, regular expressions, expressions; exit 1 on problems',
  )
  .argument('<file>', 'the rest.json to check')
  .option('--extensions <dir>', 'folder of custom converters named by converter.extension')
  .action((file: string, options: { extensions?: string }) => {
    // loaded here: validating a file needs none of the servers the other commands load
    const { validateCommand } = require('./validate') as typeof import('./validate');
    process.exitCode = validateCommand(file, options);
  });

program
  .command('connector')
  .description(
    'run the reference REST connector from a rest.json, forwarding to a platform over MQTT (token in IOTC_GATEWAY_TOKEN)',
  )
  .argument('<file>', 'the rest.json')
  .requiredOption('--mqtt-url <url>', "the platform's MQTT URL, e.g. mqtt://127.0.0.1:1883")
  .option('--extensions <dir>', 'folder of custom converters named by converter.extension')
  .action(async (file: string, options: { mqttUrl: string; extensions?: string }) => {
    const { runConnector } = require('./connector') as typeof import('./connector');
    process.exitCode = await runConnector(file, options);
  });

program
  .command('external-api')
  .description(
    'run the external-API simulator a REST connector under test calls (attribute updates, server-side RPC)',
  )
  .option('--host <address>', 'address to listen on', '127.0.0.1')
  .option('--port <port>', 'port (0 = any free port)', port, 5001)
  .action(async (options: { host: string; port: number }) => {
    const { runExternalApi } = require('./external-api') as typeof import('./external-api');
    await runExternalApi(options);
  });

program
  .command('cleanup')
  .description(
    'delete what an interrupted run left on a target (only entities its cleanup journal names)',
  )
  .option(
    '-t, --target <profile>',
    'built-in profile name or target profile JSON file',
    process.env.IOTC_TARGET || 'embedded',
  )
  .action(async (options: { target: string }) => {
    process.exitCode = await cleanupTarget(options.target);
  });

program
  .command('simulate')
  .description('run the reference platform as a standalone server')
  .option('--host <address>', 'address to listen on', '127.0.0.1')
  .option(
    '--http-port <port>',
    'port of the HTTP device API and admin API (0 = any free port)',
    port,
    8080,
  )
  .option(
    '--https-port <port>',
    'also serve HTTPS on this port with a generated self-signed certificate (0 = any free port)',
    port,
  )
  .option(
    '--mqtt-port <port>',
    'port of the MQTT transport, device and gateway topics (0 = any free port)',
    port,
    1883,
  )
  .option(
    '--mqtts-port <port>',
    'also serve MQTT over TLS on this port with a generated self-signed certificate (0 = any free port)',
    port,
  )
  .option(
    '--max-devices <n>',
    "the tenant's device limit (a gateway connect beyond it fails with PUBACK 0x97)",
    positiveInteger,
  )
  .option(
    '--claim-duration-ms <ms>',
    'device.claim.duration: claim window when a claim gives no durationMs',
    positiveInteger,
  )
  .option(
    '--state-dir <dir>',
    'keep the generated TLS certificate here and reuse it at the next start (the CA file stays valid)',
  )
  .option('--json', 'print one JSON line with the URLs and demo credentials instead of text', false)
  .action(async (options: SimulateOptions) => {
    await simulate(options);
  });

program.parseAsync(process.argv).catch((error: unknown) => {
  const err = error as { code?: string; message?: string };
  console.error(`iotc: ${err.message ?? String(error)}`);
  process.exitCode = 2;
});
