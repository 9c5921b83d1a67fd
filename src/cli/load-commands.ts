/** `iotc load ...`: the load profiles (load/), each loaded when its command runs. */
import type { Command } from 'commander';
import type { MqttGatewayCommandOptions } from './load-mqtt-gateway';
import type { HttpTelemetryCommandOptions } from './load-http-telemetry';
import { positiveInteger, positiveNumber, qos, mqttVersion, duration } from './option-parsers';

/** Adds `load` and its subcommands to the program. */
export function registerLoadCommands(program: Command): void {
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
    .option(
      '--concurrency <n>',
      'requests unanswered at most at once (default 64)',
      positiveInteger,
    )
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
}
