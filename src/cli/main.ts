/** The `iotc` command line. */
// first: cucumber's match indices without its polyfill, in place before anything loads cucumber
import '../engine/native-match-indices';
import { randomBytes } from 'node:crypto';
import { Command, CommanderError, Option } from 'commander';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../lib/package-root';
import type { SimulateOptions } from './simulate';
import { SIMULATE_MODES } from './simulate-modes';
import type { ExternalApiOptions } from './external-api';
import type { GatewayConfigOptions } from './gateway-config';
import { registerCertifyCommand } from './certify-command';
import { EXIT_CODES_HELP } from './exit-codes-help';
import { registerLoadCommands } from './load-commands';
import { registerReportCommands } from './report-commands';
import { idList, port, positiveInteger, runIdOption } from './option-parsers';

// Each command loads its implementation when it runs: `iotc --help` loads none of the servers,
// cucumber or the drivers, and starts in a fraction of a second.

// usage errors exit 2 (bad invocation), like every other error that stops a command before it can
// test anything; --help and --version still exit 0. Set before the subcommands are made: they
// inherit it.
const program = new Command()
  .exitOverride()
  .name('iotc')
  .description('Conformance harness and reference simulator for ThingsBoard-style IoT platforms')
  .version((require(join(PACKAGE_ROOT, 'package.json')) as { version: string }).version);

program
  .command('run')
  .description('run the conformance suite against a target and write reports')
  .addHelpText('after', EXIT_CODES_HELP)
  .option(
    '-t, --target <profile>',
    'built-in profile name, target profile JSON file, or the http(s) URL of the platform (the rest from IOTC_* variables: docs/reference/target-url.md)',
    process.env.IOTC_TARGET || 'embedded',
  )
  .option(
    '--tags <expression>',
    'cucumber tag expression selecting scenarios (e.g. "@http-device-api")',
  )
  .option('-r, --reports <dir>', 'where reports are written', 'reports')
  .option(
    '-p, --parallel <n>',
    "scenarios run in n worker processes at once (each embedded worker starts its own reference and runs three scenarios at a time on it, IOTC_SCENARIOS_PER_WORKER sets how many); 'auto': as many as the scenarios keep busy, up to a limit, more the farther a remote target is (docs/concepts/architecture.md); scenarios that would disturb each other never overlap",
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

registerLoadCommands(program);
registerReportCommands(program);

program
  .command('profile')
  .description('target profile tools')
  .command('check')
  .description(
    'list the requirements a run with this profile will leave NOT APPLICABLE or NOT TESTED, each with the profile field or capability that would let it run',
  )
  .argument(
    '<profile>',
    'built-in profile name, target profile JSON file or http(s) URL (iotc run --target)',
  )
  .option('--json', 'print the list as JSON: [{ id, verdict, needs, skipped, scenarios }]')
  .action((profile: string, options: { json?: boolean }) => {
    const { profileCheckCommand } = require('./profile-check') as typeof import('./profile-check');
    process.exitCode = profileCheckCommand(profile, options);
  });

program
  .command('faults')
  .description(
    'the kill matrix: every planted fault on the embedded reference must make its requirement FAIL, and every planted fault of a client under test exactly its requirement in `iotc certify` (exit non-zero when one survives or a testable requirement has no fault)',
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
    'worker processes sharing the faults of the reference (each with its own baseline and references), and client certifications at once; "auto": 4 when at least half of the CPU time was idle over the last second, else 2 (more workers on a busy machine only starve each other into INCONCLUSIVE runs)',
    (value: string) => (value === 'auto' ? ('auto' as const) : positiveInteger(value)),
    1 as number | 'auto',
  )
  .action(
    async (options: {
      reports: string;
      faults?: string[];
      requirements?: string[];
      allowUncovered: boolean;
      workers: number | 'auto';
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
    '--default-rest-port',
    'leave server.port out of rest.json: the connector listens on its default 5000, so a run exercises that default (RC-SRV-02); --rest-port is then ignored',
  )
  .option(
    '--rest-sparse-port <port>',
    "the port of the second connector, rest-sparse.json's (0 = a port free now)",
    port,
    0,
  )
  .addOption(
    new Option(
      '--run-id <id>',
      "the id of the run the configuration is for (its constant device names carry it; the run's IOTC_RUN_ID)",
    )
      .argParser(runIdOption)
      .default(randomBytes(3).toString('hex'), 'a new random id of 6 hex digits'),
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
    const { cleanupTarget } = require('../engine/cleanup') as typeof import('../engine/cleanup');
    process.exitCode = await cleanupTarget(options.target, (line) => console.log(line));
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
    'how long a new MQTT connection may wait before its CONNECT (default 10000; ThingsBoard has no such timeout)',
    positiveInteger,
  )
  .addOption(
    new Option(
      '--mode <mode>',
      "spec: docs/reference/interfaces.md (ThingsBoard where it is silent); thingsboard-4.3: also ThingsBoard 4.3's known " +
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
    '--print-profile',
    'print a target profile of this process on stdout (text to stderr) with which `iotc run` is CONFORMANT; serves HTTPS and MQTT over TLS on free ports unless given',
    false,
  )
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

/**
 * Every command and option: docs/reference/cli.md is generated from it (scripts/gen-docs.ts), so it
 * cannot drift.
 */
export { program };

/** Parses the command line and runs its command (bin/iotc.js). */
export function main(argv: readonly string[] = process.argv): Promise<void> {
  return program.parseAsync([...argv]).then(
    () => undefined,
    (error: unknown) => {
      if (error instanceof CommanderError) {
        process.exitCode = error.exitCode === 0 ? 0 : 2;
        return; // commander printed the message already
      }
      const err = error as { code?: string; message?: string };
      console.error(
        `iotc: ${err.code?.startsWith('IOTC_') ? `${err.code}: ` : ''}${err.message ?? String(error)}`,
      );
      process.exitCode = 2;
    },
  );
}
