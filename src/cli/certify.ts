/**
 * `iotc certify device`: runs a certification session (src/certify/), judges the client's requests against the
 * catalogue's device requirements and writes the same reports as `iotc run` (conformance.json and .html, junit.xml,
 * badge.svg) through the one report writer. Exit codes as `iotc run`: 0 no FAIL, 1 a FAIL, 3 nothing tested.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { buildConformanceReport, loadCatalogue } from '../report/conformance';
import { provenance } from '../report/provenance';
import { Redactor } from '../report/redact';
import { printSummary, writeConformanceFiles } from '../report/write';
import { PACKAGE_ROOT } from '../../lib/package-root';
import { runCertifySession } from '../certify/certify-device';
import { HTTP_DEVICE_CHECKS } from '../certify/http-device-checks';
import { deviceVerdicts } from '../certify/device-verdicts';
import { EXIT } from './run';

export interface CertifyDeviceOptions {
  transport: 'http';
  exec: string;
  reports: string;
  rpcTimeoutMs: number;
  startTimeoutMs: number;
  graceMs: number;
}

export async function certifyDevice(options: CertifyDeviceOptions): Promise<number> {
  const session = await runCertifySession({
    exec: options.exec,
    rpcTimeoutMs: options.rpcTimeoutMs,
    startTimeoutMs: options.startTimeoutMs,
    graceMs: options.graceMs,
    say: (line) => console.log(`certify: ${line}`),
  });
  const catalogue = loadCatalogue(undefined, ['device']).filter(
    (requirement) => requirement.interface === 'http-device-api',
  );
  const { requirements, scenarios } = deviceVerdicts(catalogue, HTTP_DEVICE_CHECKS, {
    token: session.token,
    exchanges: session.exchanges,
    rpcs: session.rpcs,
  });
  const redactor = new Redactor();
  redactor.addSecret(session.token);
  const version = (require(join(PACKAGE_ROOT, 'package.json')) as { version: string }).version;
  const report = buildConformanceReport({
    version,
    target: {
      name: `HTTP device under test: ${options.exec}`,
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
      ? { couldNotTest: `the client under test sent no request (it ended: ${session.exit})` }
      : {}),
    provenance: provenance({ version, tags: '', paths: [] }),
  });
  mkdirSync(options.reports, { recursive: true });
  writeConformanceFiles(report, options.reports, redactor);
  printSummary(report, redactor);
  console.log(
    `Reports: ${options.reports}/{conformance.json (+ .sha256),conformance.html,junit.xml,badge.svg}`,
  );
  if (report.run.couldNotTest) return EXIT.couldNotTest;
  return requirements.some((requirement) => requirement.verdict === 'FAIL')
    ? EXIT.notConformant
    : EXIT.conformant;
}
