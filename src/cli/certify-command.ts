/** The `iotc certify` command's options (its implementation, ./certify, is loaded only when it runs). */
import { type Command, InvalidArgumentError, Option } from 'commander';

function milliseconds(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed <= 0)
    throw new InvalidArgumentError('expected a positive integer of milliseconds');
  return parsed;
}

/** The options every certification takes: the MQTT version, the client, the reports and the session's bounds. */
function withSessionOptions(command: Command, environment: string): Command {
  return command
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
      `the client under test, run through the shell with ${environment} in its environment`,
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
      'how long the client has to become ready (see the README) before the steps are skipped',
      milliseconds,
      60_000,
    )
    .option(
      '--grace-ms <ms>',
      'how long the client may run on after the steps before it is ended (SIGTERM, then SIGKILL)',
      milliseconds,
      10_000,
    );
}

export function registerCertifyCommand(program: Command): void {
  const certify = program
    .command('certify')
    .description(
      'certify a client of the platform (a device or a gateway) against the reference platform',
    );
  withSessionOptions(
    certify
      .command('device')
      .description(
        "run a device client under test against the instrumented reference, walk the steps that need the platform (a shared-attribute update, a two-way RPC) and judge every request or packet of the client against the catalogue's device requirements",
      )
      .addOption(
        new Option('--transport <transport>', 'the device API the client speaks')
          .choices(['http', 'mqtt'])
          .default('http'),
      ),
    'IOTC_CERTIFY_URL (and IOTC_CERTIFY_MQTT_URL, IOTC_CERTIFY_MQTT_VERSION for MQTT) and IOTC_CERTIFY_TOKEN',
  ).action(async (options: Omit<import('./certify').CertifyOptions, 'role'>) => {
    const { certifyClient } = require('./certify') as typeof import('./certify');
    process.exitCode = await certifyClient({ ...options, role: 'device' });
  });
  withSessionOptions(
    certify
      .command('gateway')
      .description(
        "run a gateway client under test (MQTT) against the instrumented reference: it connects the device named in IOTC_CERTIFY_DEVICE, gets a shared-attribute update and a two-way RPC for it, and every packet is judged against the catalogue's gateway requirements",
      ),
    'IOTC_CERTIFY_MQTT_URL, IOTC_CERTIFY_MQTT_VERSION, IOTC_CERTIFY_TOKEN (the gateway device) and IOTC_CERTIFY_DEVICE (the device to connect)',
  ).action(async (options: Omit<import('./certify').CertifyOptions, 'role' | 'transport'>) => {
    const { certifyClient } = require('./certify') as typeof import('./certify');
    process.exitCode = await certifyClient({ ...options, role: 'gateway', transport: 'mqtt' });
  });
}
