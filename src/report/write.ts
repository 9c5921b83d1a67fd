/**
 * The one writer of a conformance report's files, for `iotc run` and `iotc report merge`:
 * conformance.json (with its SHA-256 digest beside it), conformance.html, junit.xml and badge.svg.
 * Every file is redacted, and local paths are made relative (a report handed to a customer shows no
 * one's home folder).
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { badgeSvg } from './badge';
import { type ConformanceReport, formatSummary } from './conformance';
import { conformanceHtml } from './html';
import { junitXml } from './junit';
import type { Redactor } from './redact';
import { writeDigest } from './signature';
import { PACKAGE_ROOT } from '../../lib/package-root';

const ROOT = PACKAGE_ROOT;

/**
 * Local absolute paths in text: the project's own folder becomes relative, a home folder becomes ~.
 */
export function scrubLocalPaths(text: string): string {
  const home = homedir();
  let result = text.replaceAll(`${ROOT}/`, '').replaceAll(ROOT, '.');
  if (home && home !== '/') result = result.replaceAll(home, '~');
  return result;
}

export function writeConformanceFiles(
  report: ConformanceReport,
  dir: string,
  redactor?: Redactor,
): void {
  const clean = (text: string) => scrubLocalPaths(redactor ? redactor.redact(text) : text);
  // The page and junit are made from the redacted report, so their markup is built around redacted
  // text (redacting the finished HTML would put a raw <redacted> tag into it); the final clean of
  // each file is the safety net.
  const json = clean(JSON.stringify(report, null, 2));
  const finished = JSON.parse(json) as ConformanceReport;
  writeFileSync(join(dir, 'conformance.json'), `${json}\n`);
  writeDigest(dir);
  writeFileSync(join(dir, 'conformance.html'), clean(conformanceHtml(finished)));
  writeFileSync(join(dir, 'junit.xml'), clean(junitXml(finished)));
  writeFileSync(join(dir, 'badge.svg'), clean(badgeSvg(finished)));
}

export function printSummary(report: ConformanceReport, redactor?: Redactor): void {
  const text = formatSummary(report);
  console.log(redactor ? redactor.redact(text) : text);
}
