/**
 * `iotc certify device|gateway`: runs a certification session (src/certify/), judges what the
 * client sent against the catalogue's device or gateway requirements and writes the same reports as
 * `iotc run` (conformance.json and .html, junit.xml, badge.svg) through the one report writer. Exit
 * codes as `iotc run`: 0 no FAIL, 1 a FAIL, 3 nothing tested. With `--console` a person drives the
 * device from the operator console (src/certify/console/) instead of --exec.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { buildConformanceReport } from '../report/conformance';
import { provenance } from '../report/provenance';
import { Redactor } from '../report/redact';
import { printSummary, writeConformanceFiles } from '../report/write';
import { PACKAGE_ROOT } from '../../lib/package-root';
import type { Requirement } from '../../schemas';
import { advertised, operatorSteps, runCertifySession } from '../certify/certify-device';
import { HTTP_DEVICE_CHECKS } from '../certify/http-device-checks';
import { MQTT_DEVICE_CHECKS } from '../certify/mqtt-device-checks';
import { type CertifyMode, gatewayChecks } from '../certify/gateway-checks';
import { certifiedRequirements } from '../certify/certified-requirements';
import { MQTT_EVIDENCE } from '../certify/mqtt-packets';
import { HTTP_EVIDENCE, deviceVerdicts } from '../certify/device-verdicts';
import { explainNotTested } from '../certify/session-steps';
import { ConsoleState, type SeenSoFar } from '../certify/console/console-state';
import { type OperatorConsole, startOperatorConsole } from '../certify/console/console-server';
import { mqttVersionName } from '../certify/mqtt-device-checks';
import { sent } from '../certify/mqtt-packets';
import type { CertifySession } from '../certify/certify-device';
import { reportExitCode } from '../report/exit-code';
import { homedir } from 'node:os';
import { StallLog } from '../../steps/support/timing';
import { clientBehaviourVerdicts } from '../certify/client-behaviour-checks';

export interface CertifyOptions {
  role: 'device' | 'gateway';
  transport: 'http' | 'mqtt';
  mqttVersion: '3.1.1' | '5';
  /** What the client is judged by (gateway-checks.ts CertifyMode); default spec. */
  mode?: CertifyMode;
  /** The client under test; absent with --console. */
  exec?: string;
  /** Operator-guided: a person drives the (HTTP) device from the console (no --exec). */
  console?: boolean;
  consolePort?: number;
  /** Where the device-facing servers and the console listen (default 127.0.0.1). */
  listen?: string;
  /**
   * The host devices reach them at: the URLs printed, given to the client and shown in the console.
   */
  advertise?: string;
  httpPort?: number;
  mqttPort?: number;
  /**
   * --tls: HTTPS and mqtts with a certificate of iotc's certificate authority (kept in stateDir) or
   * the operator's.
   */
  tls?: boolean;
  tlsCert?: string;
  tlsKey?: string;
  /** Where iotc keeps its certificate authority (default ~/.iotc). */
  stateDir?: string;
  /**
   * --duration (ms): how long the session lasts from the client's start; behaviour over time is
   * judged.
   */
  duration?: number;
  stepTimeoutMs?: number;
  reports: string;
  rpcTimeoutMs: number;
  startTimeoutMs: number;
  graceMs: number;
}

export async function certifyClient(options: CertifyOptions): Promise<number> {
  const catalogue = certifiedRequirements(options.role, options.transport, {
    tls: usesTls(options),
    overTime: options.duration !== undefined,
  });
  let operatorConsole: OperatorConsole | undefined;
  try {
    if (options.console) {
      operatorConsole = await startOperatorConsole(
        // the live checklist judges the interface's requirements; those beyond it
        // (client-behaviour-checks.ts) are judged once the session has ended
        new ConsoleState(
          operatorSteps(options.role, options.transport),
          (seen) =>
            judge(
              options,
              catalogue.filter((requirement) => !requirement.interface.startsWith('client-')),
              seen,
            ).requirements,
        ),
        { port: options.consolePort ?? 0, ...(options.listen ? { host: options.listen } : {}) },
      );
      console.log(
        `certify: operator console: ${advertised(operatorConsole.url, options.advertise)}`,
      );
    }
    return await certifyWith(options, catalogue, operatorConsole);
  } finally {
    await operatorConsole?.close();
  }
}

async function certifyWith(
  options: CertifyOptions,
  catalogue: readonly Requirement[],
  operatorConsole: OperatorConsole | undefined,
): Promise<number> {
  const mqtt = options.transport === 'mqtt';
  // the harness's stalls over the session: the margin of every timing verdict
  // (steps/support/timing.ts)
  const stalls = new StallLog();
  const session = await runCertifySession({
    ...(options.exec === undefined ? {} : { exec: options.exec }),
    role: options.role,
    transport: options.transport,
    mqttVersion: options.mqttVersion === '5' ? 5 : 4,
    rpcTimeoutMs: options.rpcTimeoutMs,
    startTimeoutMs: options.startTimeoutMs,
    ...(options.stepTimeoutMs === undefined ? {} : { stepTimeoutMs: options.stepTimeoutMs }),
    graceMs: options.graceMs,
    ...(options.listen === undefined ? {} : { listen: options.listen }),
    ...(options.advertise === undefined ? {} : { advertise: options.advertise }),
    ...(options.httpPort === undefined ? {} : { httpPort: options.httpPort }),
    ...(options.mqttPort === undefined ? {} : { mqttPort: options.mqttPort }),
    ...(usesTls(options)
      ? {
          tls:
            options.tlsCert && options.tlsKey
              ? { certFile: options.tlsCert, keyFile: options.tlsKey }
              : { stateDir: options.stateDir ?? join(homedir(), '.iotc') },
        }
      : {}),
    ...(options.duration === undefined ? {} : { durationMs: options.duration }),
    say: (line) => console.log(`certify: ${line}`),
    ...(operatorConsole ? { events: operatorConsole.events, finish: operatorConsole.finish } : {}),
  });
  // the session is over: the log keeps its stalls, and the judging's own time is none of the
  // session's
  stalls.stop();
  const { exchanges, packets } = session;
  const beyond = catalogue.filter((requirement) => requirement.interface.startsWith('client-'));
  const judgedByInterface = catalogue.filter((requirement) => !beyond.includes(requirement));
  const behaviour = clientBehaviourVerdicts(
    beyond,
    {
      transport: options.transport,
      packets,
      exchanges,
      closedAt: session.closedAt,
      openAtConnect: session.openAtConnect,
      clientEndedAt: session.clientEndedAt,
      ...(session.tls ? { tls: session.tls } : {}),
      ...(options.duration === undefined
        ? {}
        : {
            overTime: {
              durationMs: options.duration,
              startedAt: session.clientStartedAt,
              ...(session.endedByItself === undefined
                ? {}
                : { endedByItself: session.endedByItself }),
              ...(session.reconnect ? { reconnect: session.reconnect } : {}),
            },
          }),
      stall: (from, to) => stalls.worstBetween(from, to),
    },
    options.role,
  );
  const byInterface = judge(options, judgedByInterface, session);
  const decided = new Map(
    [...byInterface.requirements, ...behaviour.requirements].map((result) => [result.id, result]),
  );
  const heard = mqtt
    ? packets.some((observed) => observed.direction === 'in')
    : exchanges.length > 0;
  const judged = catalogue.map((requirement) => decided.get(requirement.id)!);
  const requirements = explainNotTested(
    heard ? judged : judged.map(notApplicableUnheard),
    session.steps,
  );
  const scenarios = [...byInterface.scenarios, ...behaviour.scenarios];
  console.log(`certify: what was tested: ${certificateTitle(options, session)}`);
  const redactor = new Redactor();
  redactor.addSecret(session.token);
  const version = (require(join(PACKAGE_ROOT, 'package.json')) as { version: string }).version;
  const report = buildConformanceReport({
    version,
    target: {
      name: certificateTitle(options, session),
      httpUrl: session.httpUrl,
      adminUrl: session.httpUrl,
      capabilities: [],
    },
    startedAt: session.startedAt,
    finishedAt: session.finishedAt,
    tagExpression: '',
    scenarios,
    requirements,
    redactor,
    ...(heard
      ? {}
      : {
          couldNotTest: `the client under test sent no ${mqtt ? 'packet' : 'request'} (${options.exec === undefined ? 'the session' : 'it'} ended: ${session.exit})`,
        }),
    provenance: provenance({ version, tags: '', paths: [] }),
  });
  mkdirSync(options.reports, { recursive: true });
  writeConformanceFiles(report, options.reports, redactor);
  printSummary(report, redactor);
  console.log(
    `Reports: ${options.reports}/{conformance.json (+ .sha256),conformance.html,junit.xml,badge.svg}`,
  );
  operatorConsole?.concluded({ verdict: report.verdict ?? 'NOT TESTED', reports: options.reports });
  // one rule with iotc run (src/report/exit-code.ts): a SHOULD that fails is a warning (PASS WITH
  // WARNINGS), not a failed certification; the client chooses what it exercises, as --tags does for
  // a run
  return reportExitCode(report, 'exercised');
}

function usesTls(options: Pick<CertifyOptions, 'tls' | 'tlsCert'>): boolean {
  return options.tls === true || options.tlsCert !== undefined;
}

/**
 * The verdicts of the requirements certified over what the client did (the report's, and the
 * console's live).
 */
function judge(
  options: CertifyOptions,
  catalogue: readonly Requirement[],
  seen: SeenSoFar & { closed?: ReadonlyMap<number, number> },
) {
  const { token, exchanges, packets, rpcs, closed } = seen;
  return options.transport === 'mqtt' || options.role === 'gateway'
    ? deviceVerdicts(
        catalogue,
        options.role === 'gateway' ? gatewayChecks(options.mode ?? 'spec') : MQTT_DEVICE_CHECKS,
        {
          token,
          packets,
          rpcs,
          ...(closed ? { closed } : {}),
          protocolLevel: options.mqttVersion === '5' ? 5 : 4,
        },
        MQTT_EVIDENCE,
        options.role,
      )
    : deviceVerdicts(catalogue, HTTP_DEVICE_CHECKS, { token, exchanges, rpcs }, HTTP_EVIDENCE);
}

/**
 * A client that sent nothing at all had every occasion and took none: what would be NOT APPLICABLE
 * for a client that merely never took an optional action up (a claim, timestamped telemetry) is NOT
 * TESTED for it, as everything else.
 */
function notApplicableUnheard<Result extends { verdict: string; reason?: string }>(
  requirement: Result,
): Result {
  return requirement.verdict === 'NOT APPLICABLE'
    ? {
        ...requirement,
        verdict: 'NOT TESTED',
        reason: `not exercised: the client sent nothing (${requirement.reason})`,
      }
    : requirement;
}

/**
 * The certificate's title: what the client did, not what it was asked (issue 28). The MQTT version
 * is the protocol level of the client's CONNECTs (a level other than the one asked is named with
 * it, and fails the connect requirement, mqtt-device-checks.ts); TLS is what the session's
 * handshakes were (a client asked for TLS that completed none fails CLI-TLS-01); the duration is
 * the session's, with the one asked (--duration; a client that ended before it fails CLI-BEH-04);
 * the mode is what it was judged by (--mode).
 */
export function certificateTitle(
  options: Pick<
    CertifyOptions,
    'role' | 'transport' | 'mqttVersion' | 'exec' | 'mode' | 'duration'
  >,
  session: Pick<CertifySession, 'packets' | 'startedAt' | 'finishedAt'> &
    Partial<Pick<CertifySession, 'tls' | 'clientStartedAt' | 'clientEndedAt'>>,
): string {
  const asked = options.mqttVersion === '5' ? 5 : 4;
  const levels = [
    ...new Set(sent(session.packets, 'connect').map((c) => c.packet.protocolVersion ?? 4)),
  ];
  const versions = [
    ...new Set((session.tls?.handshakes ?? []).flatMap((h) => (h.protocol ? [h.protocol] : []))),
  ];
  const security = !session.tls
    ? 'without TLS'
    : versions.length
      ? `over TLS (${versions.join(', ')}; ${session.tls.caFile ? "iotc's certificate authority" : "the operator's certificate"})`
      : 'TLS asked, no handshake completed';
  const protocol =
    options.transport === 'http'
      ? `HTTP ${security}`
      : levels.length === 0
        ? `${mqttVersionName(asked)} asked, no CONNECT sent`
        : `${levels.map(mqttVersionName).join(' and ')}${levels.some((level) => level !== asked) ? ` (asked: ${mqttVersionName(asked)})` : ''} ${session.tls ? security : 'over TCP without TLS'}`;
  const seconds = ((session.finishedAt.getTime() - session.startedAt.getTime()) / 1000).toFixed(1);
  const held =
    options.duration === undefined ||
    session.clientStartedAt === undefined ||
    session.clientEndedAt === undefined
      ? ''
      : `, the client ran ${((session.clientEndedAt - session.clientStartedAt) / 1000).toFixed(1)} s of ${(options.duration / 1000).toFixed(1)} s asked`;
  const client = options.exec ?? 'driven from the operator console';
  return `${options.transport === 'http' ? 'HTTP' : 'MQTT'} ${options.role} under test: ${client}; ${protocol}; session ${seconds} s${held}; mode ${options.mode ?? 'spec'}`;
}
