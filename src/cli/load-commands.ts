/**
 * The `iotc load` commands: one registration per profile, each with the options every profile has (target,
 * thresholds, reports) and its own, mapped onto the profile's options (validated by the contract against the
 * profile's schema). The profiles are loaded only when their command runs.
 */
import { type Command, InvalidArgumentError, Option } from 'commander';
import type { CommonLoadOptions } from './load-run';
import { duration, mqttVersion, positiveInteger, positiveNumber, qos } from './option-parsers';

function holdSeconds(value: string): number {
  return value.trim() === '0' ? 0 : duration(value);
}

function share(value: string): number {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < 0 || parsed > 1)
    throw new InvalidArgumentError('expected a share from 0 to 1');
  return parsed;
}

/** A load profile's command with the options every profile has. */
function loadCommand(load: Command, name: string, description: string): Command {
  return load
    .command(name)
    .description(description)
    .option(
      '-t, --target <profile>',
      'built-in profile name or target profile JSON file',
      process.env.IOTC_TARGET || 'embedded',
    )
    .option(
      '--threshold <expression>',
      "k6-style threshold added to the profile's defaults, e.g. 'p99<50' or 'errors<=10' (repeatable)",
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option(
      '--no-default-thresholds',
      "only the thresholds given (--threshold, --thresholds) decide the verdict, not the profile's defaults; none at all is NOT MEASURED",
    )
    .option(
      '--thresholds <file.json>',
      'thresholds from a file: {"thresholds": ["p99<50", ...]} or {"thresholds": {"p99": ["<50"]}} (schemas/load-thresholds.ts)',
    )
    .option('-r, --reports <dir>', 'where reports/load/ is written', 'reports')
    .option(
      '--shard <i/n>',
      "run shard i of n (0-based): this process takes the i-th of n blocks of the fleet and its share of the rate; merge the shards' reports with iotc load merge",
    )
    .option(
      '--shard-count <n>',
      'run shard JOB_COMPLETION_INDEX of n (the index a Kubernetes Indexed Job gives each pod)',
      positiveInteger,
    )
    .option(
      '--start-at <time>',
      'start sending at this time (ISO 8601 or epoch ms), after the setup: every shard starts together',
    )
    .option(
      '--raw-latencies',
      'also write every latency (µs) to reports/load/<profile>.latencies.json, to check merged histograms against',
    );
}

/** The readback sample of the profiles that read back what they sent. */
function sampleOption(): Option {
  return new Option(
    '--sample <n>',
    'read back at most this many devices, spread over the fleet (default: all up to 1000)',
  ).argParser(positiveInteger);
}

function run(): typeof import('./load-run') {
  return require('./load-run') as typeof import('./load-run');
}

export function registerLoadCommands(program: Command): void {
  const load = program.command('load').description('load profiles against a target');

  loadCommand(
    load,
    'report-rate-limit',
    'find the analytics report limiter (pool size, queue capacity) with rising concurrency; fail when it differs from the profile',
  )
    .option(
      '--max-concurrency <n>',
      'highest concurrency tried (default: declared pool + queue + 3)',
      positiveInteger,
    )
    .action(async (options: CommonLoadOptions & { maxConcurrency?: number }) => {
      const { reportRateLimitProfile } =
        require('../../load/report-rate-limit') as typeof import('../../load/report-rate-limit');
      process.exitCode = await run().runLoadCommand(
        reportRateLimitProfile,
        options.maxConcurrency === undefined ? {} : { maxConcurrency: options.maxConcurrency },
        options,
      );
    });

  loadCommand(
    load,
    'mqtt-gateway',
    'G gateways x D devices publish telemetry over MQTT for a bounded time; sent, acknowledged, stored, lost, duplicated, latency',
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
    .addOption(sampleOption())
    .action(
      async (
        options: CommonLoadOptions & {
          mqttUrl?: string;
          gatewayTokenEnv?: string;
          gateways: number;
          devices: number;
          rate: number;
          totalRate?: number;
          qos: 0 | 1;
          mqttVersion: 4 | 5;
          duration: number;
          payloadBytes?: number;
          window: number;
          sample?: number;
        },
      ) => {
        const { mqttGatewayProfile } =
          require('../../load/mqtt-gateway') as typeof import('../../load/mqtt-gateway');
        process.exitCode = await run().runLoadCommand(
          mqttGatewayProfile,
          withoutUndefined({
            gateways: options.gateways,
            devicesPerGateway: options.devices,
            rate: options.totalRate ?? options.rate,
            rateOf: options.totalRate ? 'total' : 'gateway',
            qos: options.qos,
            protocolVersion: options.mqttVersion,
            durationS: options.duration,
            payloadBytes: options.payloadBytes,
            window: options.window,
            sampleDevices: options.sample,
            mqttUrl: options.mqttUrl,
            gatewayTokenEnv: options.gatewayTokenEnv,
          }),
          options,
        );
      },
    );

  loadCommand(
    load,
    'http-telemetry',
    'N devices post telemetry over the HTTP device API at a rate for a bounded time; every answer counted by status, stored/lost/duplicated read back; thresholds decide the exit code',
  )
    .option('-n, --devices <n>', 'devices created for the run', positiveInteger, 10)
    .option('--rate <n>', 'telemetry requests per second for the whole fleet', positiveNumber, 100)
    .option('--duration <s>', 'seconds of posting (at most 3600)', duration, 10)
    .option(
      '--concurrency <n>',
      'requests unanswered at most at once (default 64)',
      positiveInteger,
    )
    .addOption(sampleOption())
    .action(
      async (
        options: CommonLoadOptions & {
          devices: number;
          rate: number;
          duration: number;
          concurrency?: number;
          sample?: number;
        },
      ) => {
        const { httpTelemetryProfile } =
          require('../../load/http-telemetry') as typeof import('../../load/http-telemetry');
        process.exitCode = await run().runLoadCommand(
          httpTelemetryProfile,
          withoutUndefined({
            devices: options.devices,
            rate: options.rate,
            durationS: options.duration,
            concurrency: options.concurrency,
            sampleDevices: options.sample,
          }),
          options,
        );
      },
    );

  loadCommand(
    load,
    'mqtt-connect',
    'a connection storm: N MQTT connections, one device each, CONNECT at a rate; CONNACK latency, refusals by code, dropped connections',
  )
    .option('-n, --connections <n>', 'connections (and devices created)', positiveInteger, 100)
    .option('--rate <n>', 'CONNECTs per second', positiveNumber, 50)
    .option('--mqtt-version <3.1.1|5>', 'MQTT protocol version', mqttVersion, 5 as const)
    .option(
      '--invalid-share <0..1>',
      'share of connections with a token no device has (each must be refused)',
      share,
    )
    .option(
      '--hold <s>',
      'seconds connections stay open after the last CONNACK (default 1; 0 closes them at once)',
      holdSeconds,
    )
    .option(
      '--pending <n>',
      'CONNECTs awaiting their CONNACK at most at once (default 1000)',
      positiveInteger,
    )
    .action(
      async (
        options: CommonLoadOptions & {
          connections: number;
          rate: number;
          mqttVersion: 4 | 5;
          invalidShare?: number;
          hold?: number;
          pending?: number;
        },
      ) => {
        const { mqttConnectProfile } =
          require('../../load/mqtt-connect') as typeof import('../../load/mqtt-connect');
        process.exitCode = await run().runLoadCommand(
          mqttConnectProfile,
          withoutUndefined({
            connections: options.connections,
            rate: options.rate,
            protocolVersion: options.mqttVersion,
            invalidShare: options.invalidShare,
            holdS: options.hold,
            pending: options.pending,
          }),
          options,
        );
      },
    );

  load
    .command('merge')
    .description(
      "combine the reports of a sharded run (each shard's reports directory) into one: histograms merged, counts summed, thresholds evaluated again; the exit code is the merged verdict's",
    )
    .argument('<dirs...>', "the shards' reports directories (each with load/<profile>.json)")
    .option('-r, --reports <dir>', 'where the merged reports/load/ is written', 'reports')
    .action(async (dirs: string[], options: { reports: string }) => {
      const { mergeCommand } = require('./load-merge') as typeof import('./load-merge');
      process.exitCode = mergeCommand(dirs, options.reports);
    });
}

/** The profile's options without the members the command line left out (the schemas refuse undefined members). */
function withoutUndefined(options: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
}
