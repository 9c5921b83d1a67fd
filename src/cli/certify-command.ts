/** The `iotc certify` command's options (its implementation, ./certify, is loaded only when it runs). */
import { type Command, InvalidArgumentError, Option } from 'commander';

function milliseconds(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed <= 0)
    throw new InvalidArgumentError('expected a positive integer of milliseconds');
  return parsed;
}

export function registerCertifyCommand(program: Command): void {
  const certify = program
    .command('certify')
    .description('certify a client of the platform (a device) against the reference platform');
  certify
    .command('device')
    .description(
      "run a device client under test against the instrumented reference, walk the steps that need the platform (a shared-attribute update, a two-way RPC) and judge every request of the client against the catalogue's device requirements",
    )
    .addOption(
      new Option('--transport <transport>', 'the device API the client speaks')
        .choices(['http', 'mqtt'])
        .default('http'),
    )
    .addOption(
      new Option(
        '--mqtt-version <version>',
        'the MQTT version the client is asked to speak (IOTC_CERTIFY_MQTT_VERSION)',
      )
        .choices(['3.1.1', '5'])
        .default('3.1.1'),
    )
    .requiredOption(
      '--exec <command>',
      'the client under test, run through the shell with IOTC_CERTIFY_URL (and IOTC_CERTIFY_MQTT_URL, IOTC_CERTIFY_MQTT_VERSION for MQTT) and IOTC_CERTIFY_TOKEN in its environment',
    )
    .option('-r, --reports <dir>', 'where reports are written', 'reports')
    .option(
      '--rpc-timeout-ms <ms>',
      'timeout of the two-way RPC the client must answer',
      milliseconds,
      10_000,
    )
    .option(
      '--start-timeout-ms <ms>',
      'how long the client has to send its first request before the steps are skipped',
      milliseconds,
      60_000,
    )
    .option(
      '--grace-ms <ms>',
      'how long the client may run on after the steps before it is ended (SIGTERM, then SIGKILL)',
      milliseconds,
      10_000,
    )
    .action(async (options: import('./certify').CertifyDeviceOptions) => {
      const { certifyDevice } = require('./certify') as typeof import('./certify');
      process.exitCode = await certifyDevice(options);
    });
}
