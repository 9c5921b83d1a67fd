/**
 * `iotc certify device`: runs a certification session (src/certify/), judges the client's requests against the
 * catalogue's device requirements and writes the same reports as `iotc run` (conformance.json and .html, junit.xml,
 * badge.svg) through the one report writer. Exit codes as `iotc run`: 0 no FAIL, 1 a FAIL, 3 nothing tested.
 * With `--console` a person drives the device from the operator console (src/certify/console/) instead of --exec.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { buildConformanceReport, loadCatalogue } from '../report/conformance';
import { provenance } from '../report/provenance';
import { Redactor } from '../report/redact';
import { printSummary, writeConformanceFiles } from '../report/write';
import { PACKAGE_ROOT } from '../../lib/package-root';
import type { Requirement } from '../../schemas';
import { OPERATOR_STEPS, runCertifySession } from '../certify/certify-device';
import { HTTP_DEVICE_CHECKS } from '../certify/http-device-checks';
import { deviceVerdicts } from '../certify/device-verdicts';
import { explainNotTested } from '../certify/session-steps';
import { ConsoleState } from '../certify/console/console-state';
import { type OperatorConsole, startOperatorConsole } from '../certify/console/console-server';
import { EXIT } from './run';

export interface CertifyDeviceOptions {
  transport: 'http';
  /** The client under test; absent with --console. */
  exec?: string;
  /** Operator-guided: a person drives the device from the console (no --exec). */
  console?: boolean;
  consolePort: number;
  reports: string;
  rpcTimeoutMs: number;
  startTimeoutMs: number;
  stepTimeoutMs: number;
  graceMs: number;
}

export async function certifyDevice(options: CertifyDeviceOptions): Promise<number> {
  const catalogue = loadCatalogue(undefined, ['device']).filter(
    (requirement) => requirement.interface === 'http-device-api',
  );
  let operatorConsole: OperatorConsole | undefined;
  try {
    if (options.console) {
      operatorConsole = await startOperatorConsole(
        new ConsoleState(OPERATOR_STEPS, catalogue, HTTP_DEVICE_CHECKS),
        { port: options.consolePort },
      );
      console.log(`certify: operator console: ${operatorConsole.url}`);
    }
    return await certifyWith(options, catalogue, operatorConsole);
  } finally {
    await operatorConsole?.close();
  }
}

async function certifyWith(
  options: CertifyDeviceOptions,
  catalogue: readonly Requirement[],
  operatorConsole: OperatorConsole | undefined,
): Promise<number> {
  const session = await runCertifySession({
    ...(options.exec === undefined ? {} : { exec: options.exec }),
    rpcTimeoutMs: options.rpcTimeoutMs,
    startTimeoutMs: options.startTimeoutMs,
    stepTimeoutMs: options.stepTimeoutMs,
    graceMs: options.graceMs,
    say: (line) => console.log(`certify: ${line}`),
    ...(operatorConsole ? { events: operatorConsole.events, finish: operatorConsole.finish } : {}),
  });
  const verdicts = deviceVerdicts(catalogue, HTTP_DEVICE_CHECKS, {
    token: session.token,
    exchanges: session.exchanges,
    rpcs: session.rpcs,
  });
  const requirements = explainNotTested(verdicts.requirements, session.steps);
  const { scenarios } = verdicts;
  const redactor = new Redactor();
  redactor.addSecret(session.token);
  const version = (require(join(PACKAGE_ROOT, 'package.json')) as { version: string }).version;
  const report = buildConformanceReport({
    version,
    target: {
      name: `HTTP device under test: ${options.exec ?? 'driven from the operator console'}`,
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
    ...(session.exchanges.length === 0
      ? {
          couldNotTest: `the client under test sent no request (${options.exec === undefined ? 'the session' : 'it'} ended: ${session.exit})`,
        }
      : {}),
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
