/**
 * The `iotc certify` command's options (its implementation, ./certify, is loaded only when it
 * runs).
 */
import { type Command, Option } from 'commander';
import { milliseconds, port } from './option-parsers';
import { EXIT_CODES_HELP } from './exit-codes-help';

/**
 * The options every certification takes: the MQTT version, the client, the reports and the
 * session's bounds.
 */
function withSessionOptions(command: Command, environment: string): Command {
  return command
    .addOption(
      new Option(
        '--mqtt-version <version>',
        'MQTT clients: the MQTT version the client is asked to speak (IOTC_CERTIFY_MQTT_VERSION)',
      )
        .choices(['3.1.1', '5'])
        .default('3.1.1'),
    )
    .addOption(
      new Option(
        '--mode <mode>',
        "what the client is judged by: spec (docs/reference/interfaces.md) or thingsboard-4.3 (as ThingsBoard 4.3 judges it where it declares a deviation: a gateway's attribute request in ThingsBoard's shape, GW-ATTRREQ-01); printed on the certificate",
      )
        .choices(['spec', 'thingsboard-4.3'])
        .default('spec'),
    )
    .option(
      '--exec <command>',
      `the client under test, run through the shell with ${environment} in its environment`,
    )
    .option(
      '--listen <address>',
      'the address the device-facing servers (HTTP, MQTT) and the operator console listen on, e.g. 0.0.0.0 for devices on the bench (default 127.0.0.1)',
    )
    .option(
      '--advertise <url>',
      'the host devices reach those servers at (a URL such as http://192.0.2.20, or a host name): the URLs printed, given to the client and shown in the console carry it, each with its own port',
    )
    .option('--http-port <port>', 'fixed port of the HTTP server (default: a free one)', port)
    .option(
      '--mqtt-port <port>',
      'fixed port of the MQTT server (default: a free one), so firmware can be built once',
      port,
    )
    .option(
      '--tls',
      "serve the device-facing servers over TLS only (HTTPS, mqtts; the fixed ports are theirs) with a certificate of iotc's certificate authority, kept in --state-dir (its ca.pem is printed and given to the client as IOTC_CERTIFY_CA_FILE); the client's TLS checks run first, each starting the client once with a bad certificate presented (docs/reference/certification.md)",
    )
    .option(
      '--tls-cert <file>',
      "with --tls-key: the operator's server certificate (PEM, chain included) instead of iotc's; implies --tls",
    )
    .option('--tls-key <file>', "the operator's private key (PEM) for --tls-cert")
    .option(
      '--state-dir <dir>',
      'where iotc keeps its certificate authority (tls/authority/ca.pem), so firmware built to trust it certifies again (default ~/.iotc)',
    )
    .option(
      '--duration <ms>',
      'how long the session lasts from the client start: its behaviour over time is provoked and judged (MQTT devices and gateways: reconnect backoff and jitter, a QoS 1 publish sent again with DUP, keep-alive); at least two keep-alive periods',
      milliseconds,
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
      'how long the client has to become ready (docs/reference/certification.md) before the steps are skipped',
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

type CertifyOptions = import('./certify').CertifyOptions;

/** The operator console's options, for every kind of client (HTTP and MQTT devices, gateways). */
function withConsoleOptions(command: Command, client: 'device' | 'gateway'): Command {
  return command
    .option(
      '--console',
      `operator-guided instead of --exec: a web console (/certify, its own port) shows what to give the ${client} (${client === 'gateway' ? 'MQTT URL, host, port, token and the device to connect' : 'URL, or MQTT URL, host and port, and token'}), the step to do now, a live checklist and the messages; finish there ends it`,
    )
    .option(
      '--console-port <port>',
      'port of the operator console (default: one the OS chooses, printed)',
      port,
      0,
    )
    .option(
      '--step-timeout-ms <ms>',
      `with --console: how long a step waits for the ${client} (and for finish after the last step)`,
      milliseconds,
      300_000,
    );
}

export function registerCertifyCommand(program: Command): void {
  const certify = program
    .command('certify')
    .description(
      'certify a client of the platform (a device or a gateway) against the reference platform',
    )
    .addHelpText('after', EXIT_CODES_HELP);
  withConsoleOptions(
    withSessionOptions(
      certify
        .command('device')
        .description(
          "run a device client under test against the instrumented reference, walk the steps that need the platform (a shared-attribute update, a two-way RPC) and judge every request or packet of the client against the catalogue's device requirements; the client is a command (--exec) or a person guided by a web console (--console, HTTP and MQTT)",
        )
        .addOption(
          new Option('--transport <transport>', 'the device API the client speaks')
            .choices(['http', 'mqtt'])
            .default('http'),
        ),
      'IOTC_CERTIFY_URL (and IOTC_CERTIFY_MQTT_URL, IOTC_CERTIFY_MQTT_VERSION for MQTT) and IOTC_CERTIFY_TOKEN',
    ),
    'device',
  ).action(async (options: Omit<CertifyOptions, 'role'>, command: Command) => {
    if ((options.exec === undefined) === !options.console)
      command.error(
        'error: give the client under test with --exec "<command>", or --console (not both)',
      );
    if ((options.tlsCert === undefined) !== (options.tlsKey === undefined))
      command.error('error: --tls-cert and --tls-key go together');
    // the default applies to MQTT only; one given for an HTTP client would be silently ignored
    if (options.transport === 'http' && command.getOptionValueSource('mqttVersion') === 'cli')
      command.error('error: --mqtt-version is for an MQTT client (--transport mqtt)');
    const { certifyClient } = require('./certify') as typeof import('./certify');
    process.exitCode = await certifyClient({ ...options, role: 'device' });
  });
  withConsoleOptions(
    withSessionOptions(
      certify
        .command('gateway')
        .description(
          "run a gateway client under test (MQTT) against the instrumented reference: it connects the device named in IOTC_CERTIFY_DEVICE, gets a shared-attribute update and a two-way RPC for it, and every packet is judged against the catalogue's gateway requirements; the gateway is a command (--exec) or driven by a person from a web console (--console)",
        ),
      'IOTC_CERTIFY_MQTT_URL, IOTC_CERTIFY_MQTT_VERSION, IOTC_CERTIFY_TOKEN (the gateway device) and IOTC_CERTIFY_DEVICE (the device to connect)',
    ),
    'gateway',
  ).action(async (options: Omit<CertifyOptions, 'role' | 'transport'>, command: Command) => {
    if ((options.exec === undefined) === !options.console)
      command.error(
        'error: give the gateway under test with --exec "<command>", or --console (not both)',
      );
    if ((options.tlsCert === undefined) !== (options.tlsKey === undefined))
      command.error('error: --tls-cert and --tls-key go together');
    const { certifyClient } = require('./certify') as typeof import('./certify');
    process.exitCode = await certifyClient({ ...options, role: 'gateway', transport: 'mqtt' });
  });
}
