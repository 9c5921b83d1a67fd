/** The `iotc` command line. */
import { randomBytes } from 'node:crypto';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../lib/package-root';
import { SIMULATE_MODES, type SimulateOptions } from './simulate';
import type { MqttGatewayCommandOptions } from './load-mqtt-gateway';
import type { HttpTelemetryCommandOptions } from './load-http-telemetry';
import type { ExternalApiOptions } from './external-api';
import type { GatewayConfigOptions } from './gateway-config';
import { registerCertifyCommand } from './certify-command';
import { port } from './port-option';

// Each command loads its implementation when it runs: `iotc --help` loads none of the servers, cucumber or the
// drivers, and starts in a fraction of a second.

function runIdOption(value: string): string {
  if (!/^[a-z0-9]{4,16}$/.test(value))
    throw new InvalidArgumentError('a run id is 4 to 16 lowercase letters or digits');
  return value;
}

function positiveInteger(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed <= 0)
    throw new InvalidArgumentError('expected a positive integer');
  return parsed;
}

function idList(value: string): string[] {
  const ids = value
    .split(',')
    .map((id) => id.trim())
    .filter(Boolean);
  if (!ids.length) throw new InvalidArgumentError('expected a comma-separated list of ids');
  return ids;
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

// usage errors exit 2 (bad invocation), like every other error that stops a command before it can test anything;
// --help and --version still exit 0. Set before the subcommands are made: they inherit it.
const program = new Command()
  .exitOverride()
  .name('iotc')
  .description('Conformance harness and reference simulator for ThingsBoard-style IoT platforms')
  .version((require(join(PACKAGE_ROOT, 'package.json')) as { version: string }).version);

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
    "scenarios run in n worker processes at once (each embedded worker starts its own reference); 'auto': up to 4 on an embedded target, 1 on a remote one",
    (value: string) => (value === 'auto' ? ('auto' as const) : positiveInteger(value)),
    'auto' as const,
  )
  .argument('[features...]', 'feature files or folders (default: all)')
  .action(
    async (
      features: string[],
      options: { target: string; tags?: string; reports: string; parallel: number | 'auto' },
    ) => {
      const { runConformance } = require('./run') as typeof import('./run');
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
    const { probeReportRateLimit } =
      require('../../load/report-rate-limit') as typeof import('../../load/report-rate-limit');
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
    const { mqttGatewayCommand } =
      require('./load-mqtt-gateway') as typeof import('./load-mqtt-gateway');
    process.exitCode = await mqttGatewayCommand(options);
  });

load
  .command('http-telemetry')
  .description(
    'N devices post telemetry over the HTTP device API at a rate for a bounded time; every answer counted by status, stored/lost/duplicated read back; thresholds decide the exit code',
  )
  .option(
    '-t, --target <profile>',
    'built-in profile name or target profile JSON file',
    process.env.IOTC_TARGET || 'embedded',
  )
  .option('-n, --devices <n>', 'devices created for the run', positiveInteger, 10)
  .option('--rate <n>', 'telemetry requests per second for the whole fleet', positiveNumber, 100)
  .option('--duration <s>', 'seconds of posting (at most 3600)', duration, 10)
  .option('--concurrency <n>', 'requests unanswered at most at once (default 64)', positiveInteger)
  .option(
    '--sample <n>',
    'read back at most this many devices, spread over the fleet (default: all up to 1000)',
    positiveInteger,
  )
  .option(
    '--threshold <expression>',
    "k6-style threshold added to the profile's defaults, e.g. 'p99<50' or 'errors<=10' (repeatable)",
    (value: string, previous: string[]) => [...previous, value],
    [] as string[],
  )
  .option('-r, --reports <dir>', 'where reports/load/ is written', 'reports')
  .action(async (options: HttpTelemetryCommandOptions) => {
    const { httpTelemetryCommand } =
      require('./load-http-telemetry') as typeof import('./load-http-telemetry');
    process.exitCode = await httpTelemetryCommand(options);
  });

const report = program.command('report').description('work with conformance reports');
report
  .command('merge')
  .description(
    'merge the conformance reports of runs split across machines (exit non-zero on any FAIL)',
  )
  .argument('<parts...>', 'report folders or conformance.json files')
  .requiredOption('-o, --out <dir>', 'where the merged reports are written')
  .action((parts: string[], options: { out: string }) => {
    const { mergeCommand } = require('./report') as typeof import('./report');
    process.exitCode = mergeCommand(parts, options.out);
  });
report
  .command('keygen')
  .description(
    'make an Ed25519 key pair for signing reports: <base>.key (keep it secret) and <base>.pub',
  )
  .argument('<base>', 'path and file name without extension')
  .action((base: string) => {
    const { generateSigningKey } =
      require('../report/signature') as typeof import('../report/signature');
    const files = generateSigningKey(base);
    console.log(`private key ${files.privateKey} (mode 600), public key ${files.publicKey}`);
  });
report
  .command('sign')
  .description(
    'sign conformance.json of a report folder with an Ed25519 private key (writes conformance.json.sig)',
  )
  .argument('<dir>', 'the report folder')
  .requiredOption('-k, --key <file>', 'the Ed25519 private key (PEM)')
  .action((dir: string, options: { key: string }) => {
    const { signReport } = require('../report/signature') as typeof import('../report/signature');
    signReport(dir, options.key);
    console.log(`signed ${dir}/conformance.json: ${dir}/conformance.json.sig`);
  });
report
  .command('verify')
  .description(
    'check that conformance.json is unchanged: its SHA-256 digest and, with a public key, its signature (exit 1 if not)',
  )
  .argument('<dir>', 'the report folder')
  .option('-p, --public-key <file>', 'the Ed25519 public key (PEM) of whoever signed it')
  .action((dir: string, options: { publicKey?: string }) => {
    const { verifyReport } = require('../report/signature') as typeof import('../report/signature');
    const result = verifyReport(dir, options.publicKey);
    console.log(`digest: ${result.digest}; signature: ${result.signature}`);
    const good = result.digest === 'match' && ['valid', 'not checked'].includes(result.signature);
    process.exitCode = good ? 0 : 1;
  });

program
  .command('faults')
  .description(
    'the kill matrix: every planted fault on the embedded reference must make its requirement FAIL (exit non-zero when one survives or a testable requirement has no fault)',
  )
  .option('-r, --reports <dir>', 'where faults.json and faults.html are written', 'reports')
  .option('--faults <ids>', 'only these faults (comma-separated)', idList)
  .option('--requirements <ids>', 'only the faults of these requirements (comma-separated)', idList)
  .option(
    '--allow-uncovered',
    'list testable requirements without a fault loudly, but do not fail on them',
    false,
  )
  .option(
    '-w, --workers <n>',
    'worker processes sharing the faults (each with its own baseline and references)',
    positiveInteger,
    1,
  )
  .action(
    async (options: {
      reports: string;
      faults?: string[];
      requirements?: string[];
      allowUncovered: boolean;
      workers: number;
    }) => {
      const { faultsCommand } = require('./faults') as typeof import('./faults');
      process.exitCode = await faultsCommand(options);
    },
  );

program
  .command('validate')
  .description(
    'check a REST connector configuration (rest.json): schema, regular expressions, expressions; exit 1 on problems',
  )
  .argument('<files...>', 'the rest.json files to check')
  .option('--extensions <dir>', 'folder of custom converters named by converter.extension')
  .option('--json', 'print the result as JSON: [{ file, valid, problems }]')
  .action((files: string[], options: { extensions?: string; json?: boolean }) => {
    // loaded here: validating a file needs none of the servers the other commands load
    const { validateCommand } = require('./validate') as typeof import('./validate');
    process.exitCode = validateCommand(files, options);
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
  .option(
    '--https-port <port>',
    'also serve HTTPS on this port with a generated, untrusted self-signed certificate (0 = any free port)',
    port,
  )
  .option('--json', 'print one JSON line with the URLs instead of text', false)
  .action(async (options: ExternalApiOptions) => {
    const { runExternalApi } = require('./external-api') as typeof import('./external-api');
    await runExternalApi(options);
  });

program
  .command('gateway-config')
  .description(
    'write the configuration folder of a ThingsBoard IoT Gateway 3.8.3 running the conformance REST connector (tb_gateway.json, a gateway-ready rest.json, certificates)',
  )
  .requiredOption('-o, --out <dir>', 'the gateway configuration folder to write (TB_GW_CONFIG_DIR)')
  .requiredOption('--mqtt-url <url>', "the platform's MQTT URL, e.g. mqtt://127.0.0.1:1883")
  .option(
    '--gateway-token-env <VAR>',
    "environment variable holding the gateway device's access token",
    'IOTC_GW_TOKEN',
  )
  .requiredOption('--external-api-url <url>', 'http URL of the external-API simulator')
  .option(
    '--external-api-https-url <url>',
    'https URL of the external-API simulator (its untrusted listener, for the SSLVerify rules)',
  )
  .option('--rest-host <address>', 'address the connector listens on', '127.0.0.1')
  .option('--rest-port <port>', "the connector's port (0 = a port free now)", port, 0)
  .option(
    '--run-id <id>',
    "the id of the run the configuration is for (its constant device names carry it; the run's IOTC_RUN_ID)",
    runIdOption,
    randomBytes(3).toString('hex'),
  )
  .action(async (options: GatewayConfigOptions) => {
    const { gatewayConfig } = require('./gateway-config') as typeof import('./gateway-config');
    process.exitCode = await gatewayConfig(options);
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
    const { cleanupTarget } = require('./cleanup') as typeof import('./cleanup');
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
    '--mqtt-connect-timeout-ms <ms>',
    "how long a new MQTT connection may wait before its CONNECT (default 10000, ThingsBoard's MQTT_TIMEOUT)",
    positiveInteger,
  )
  .addOption(
    new Option(
      '--mode <mode>',
      "spec: interfaces.md (ThingsBoard where it is silent); thingsboard-4.3: also ThingsBoard 4.3's known " +
        'deviations (500 for bad JSON over HTTP, nulls dropped, numeric strings cast, gateway attribute requests ' +
        'and telemetry elements read as ThingsBoard does, provisioning fields optional, QoS 2 answered PUBACK)',
    )
      .choices([...SIMULATE_MODES])
      .default('spec'),
  )
  .option(
    '--state-dir <dir>',
    'keep the generated TLS certificate here and reuse it at the next start (the CA file stays valid)',
  )
  .option('--json', 'print one JSON line with the URLs and demo credentials instead of text', false)
  .option(
    '--log',
    'print a line per HTTP request and MQTT packet it receives and sends (default in a terminal)',
  )
  .option('--no-log', 'print nothing per request and packet')
  .action(async (options: SimulateOptions) => {
    const { simulate } = require('./simulate') as typeof import('./simulate');
    await simulate(options);
  });

registerCertifyCommand(program);

program.parseAsync(process.argv).catch((error: unknown) => {
  if (error instanceof CommanderError) {
    process.exitCode = error.exitCode === 0 ? 0 : 2;
    return; // commander printed the message already
  }
  const err = error as { code?: string; message?: string };
  console.error(
    `iotc: ${err.code?.startsWith('IOTC_') ? `${err.code}: ` : ''}${err.message ?? String(error)}`,
  );
  process.exitCode = 2;
});
