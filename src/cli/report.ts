/** `iotc report merge <parts...> --out <dir>`: conformance.json, .html and junit.xml of runs split across machines. */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { formatSummary, type ConformanceReport } from '../report/conformance';
import { conformanceHtml } from '../report/html';
import { junitXml } from '../report/junit';
import { mergeReports } from '../report/merge';

export function mergeCommand(
  parts: string[],
  outDir: string,
  log: (line: string) => void = console.log,
): number {
  const reports = parts.map((part) => {
    const path =
      existsSync(part) && statSync(part).isDirectory() ? join(part, 'conformance.json') : part;
    return JSON.parse(readFileSync(path, 'utf8')) as ConformanceReport;
  });
  const merged = mergeReports(reports);
  const dir = resolve(outDir);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'conformance.json'), `${JSON.stringify(merged, null, 2)}\n`);
  writeFileSync(join(dir, 'conformance.html'), conformanceHtml(merged));
  writeFileSync(join(dir, 'junit.xml'), junitXml(merged));
  log(formatSummary(merged));
  log(
    `\nMerged ${reports.length} reports into ${dir}/{conformance.json,conformance.html,junit.xml}`,
  );
  return merged.requirements.some((requirement) => requirement.verdict === 'FAIL') ? 1 : 0;
}
