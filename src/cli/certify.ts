/**
 * `iotc certify device|gateway`: runs a certification session (src/certify/), judges what the client sent against
 * the catalogue's device or gateway requirements and writes the same reports as `iotc run` (conformance.json and .html, junit.xml,
 * badge.svg) through the one report writer. Exit codes as `iotc run`: 0 no FAIL, 1 a FAIL, 3 nothing tested.
 * With `--console` a person drives the device from the operator console (src/certify/console/) instead of --exec.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { buildConformanceReport } from '../report/conformance';
import { provenance } from '../report/provenance';
import { Redactor } from '../report/redact';
import { printSummary, writeConformanceFiles } from '../report/write';
import { PACKAGE_ROOT } from '../../lib/package-root';
import type { Requirement } from '../../schemas';
import { OPERATOR_STEPS, advertised, runCertifySession } from '../certify/certify-device';
import { HTTP_DEVICE_CHECKS } from '../certify/http-device-checks';
import { MQTT_DEVICE_CHECKS } from '../certify/mqtt-device-checks';
import { type CertifyMode, gatewayChecks } from '../certify/gateway-checks';
import { certifiedRequirements } from '../certify/certified-requirements';
import { MQTT_EVIDENCE } from '../certify/mqtt-packets';
import { HTTP_EVIDENCE, deviceVerdicts } from '../certify/device-verdicts';
import { explainNotTested } from '../certify/session-steps';
import { ConsoleState } from '../certify/console/console-state';
import { type OperatorConsole, startOperatorConsole } from '../certify/console/console-server';
import { mqttVersionName } from '../certify/mqtt-device-checks';
import { sent } from '../certify/mqtt-packets';
import type { CertifySession } from '../certify/certify-device';
import { EXIT } from './run';

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
  /** The host devices reach them at: the URLs printed, given to the client and shown in the console. */
  advertise?: string;
  httpPort?: number;
  mqttPort?: number;
  stepTimeoutMs?: number;
  reports: string;
  rpcTimeoutMs: number;
  startTimeoutMs: number;
  graceMs: number;
}

export async function certifyClient(options: CertifyOptions): Promise<number> {
  const catalogue = certifiedRequirements(options.role, options.transport);
  let operatorConsole: OperatorConsole | undefined;
  try {
    if (options.console) {
      operatorConsole = await startOperatorConsole(
        new ConsoleState(OPERATOR_STEPS, catalogue, HTTP_DEVICE_CHECKS),
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
  const gateway = options.role === 'gateway';
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
    say: (line) => console.log(`certify: ${line}`),
    ...(operatorConsole ? { events: operatorConsole.events, finish: operatorConsole.finish } : {}),
  });
  const { token, exchanges, packets, rpcs } = session;
  const verdicts = mqtt
    ? deviceVerdicts(
        catalogue,
        gateway ? gatewayChecks(options.mode ?? 'spec') : MQTT_DEVICE_CHECKS,
        { token, packets, rpcs, protocolLevel: options.mqttVersion === '5' ? 5 : 4 },
        MQTT_EVIDENCE,
        options.role,
      )
    : deviceVerdicts(catalogue, HTTP_DEVICE_CHECKS, { token, exchanges, rpcs }, HTTP_EVIDENCE);
  const requirements = explainNotTested(verdicts.requirements, session.steps);
  const { scenarios } = verdicts;
  const heard = mqtt
    ? packets.some((observed) => observed.direction === 'in')
    : exchanges.length > 0;
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
  if (report.run.couldNotTest) return EXIT.couldNotTest;
  return requirements.some((requirement) => requirement.verdict === 'FAIL')
    ? EXIT.notConformant
    : EXIT.conformant;
}

/**
 * The certificate's title: what the client did, not what it was asked (issue 28). The MQTT version is the protocol
 * level of the client's CONNECTs (a level other than the one asked is named with it, and fails the connect
 * requirement, mqtt-device-checks.ts); the transport is the one the client used (the certification offers plain TCP
 * and HTTP only, so no TLS); the duration is the session's; the mode is what it was judged by (--mode).
 */
export function certificateTitle(
  options: Pick<CertifyOptions, 'role' | 'transport' | 'mqttVersion' | 'exec' | 'mode'>,
  session: Pick<CertifySession, 'packets' | 'startedAt' | 'finishedAt'>,
): string {
  const asked = options.mqttVersion === '5' ? 5 : 4;
  const levels = [
    ...new Set(sent(session.packets, 'connect').map((c) => c.packet.protocolVersion ?? 4)),
  ];
  const protocol =
    options.transport === 'http'
      ? 'HTTP without TLS'
      : levels.length === 0
        ? `${mqttVersionName(asked)} asked, no CONNECT sent`
        : `${levels.map(mqttVersionName).join(' and ')}${levels.some((level) => level !== asked) ? ` (asked: ${mqttVersionName(asked)})` : ''} over TCP without TLS`;
  const seconds = ((session.finishedAt.getTime() - session.startedAt.getTime()) / 1000).toFixed(1);
  const client = options.exec ?? 'driven from the operator console';
  return `${options.transport === 'http' ? 'HTTP' : 'MQTT'} ${options.role} under test: ${client}; ${protocol}; session ${seconds} s; mode ${options.mode ?? 'spec'}`;
}
