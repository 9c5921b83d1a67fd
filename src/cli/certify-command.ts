/** The `iotc certify` command's options (its implementation, ./certify, is loaded only when it runs). */
import { type Command, InvalidArgumentError, Option } from 'commander';
import { port } from './port-option';

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
      "run a device client under test against the instrumented reference, walk the steps that need the platform (a shared-attribute update, a two-way RPC) and judge every request of the client against the catalogue's device requirements; the client is a command (--exec) or a person guided by a web console (--console)",
    )
    .addOption(
      new Option('--transport <transport>', 'the device API the client speaks')
        .choices(['http'])
        .default('http'),
    )
    .option(
      '--exec <command>',
      'the client under test, run through the shell with IOTC_CERTIFY_URL and IOTC_CERTIFY_TOKEN in its environment',
    )
    .option(
      '--console',
      'operator-guided instead of --exec: a web console (/certify, its own port) shows the URL and token to give the device, the step to do now, a live checklist and the messages; finish there ends it',
    )
    .option(
      '--console-port <port>',
      'port of the operator console (default: one the OS chooses, printed)',
      port,
      0,
    )
    .option(
      '--step-timeout-ms <ms>',
      'with --console: how long a step waits for the device (and for finish after the last step)',
      milliseconds,
      300_000,
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
    .action(async (options: import('./certify').CertifyDeviceOptions, command: Command) => {
      if ((options.exec === undefined) === !options.console)
        command.error(
          'error: give the client under test with --exec "<command>", or --console (not both)',
        );
      const { certifyDevice } = require('./certify') as typeof import('./certify');
      process.exitCode = await certifyDevice(options);
    });
}
