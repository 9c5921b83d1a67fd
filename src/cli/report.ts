/**
 * `iotc report merge <parts...> --out <dir>`: conformance.json, .html and junit.xml of runs split
 * across machines.
 */
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { formatSummary, type ConformanceReport } from '../report/conformance';
import { writeConformanceFiles } from '../report/write';
import { mergeReports } from '../report/merge';
import { reportExitCode } from '../report/exit-code';
import { parseJsonText } from '../../schemas/validate';

export function mergeCommand(
  parts: string[],
  outDir: string,
  log: (line: string) => void = console.log,
): number {
  const reports = parts.map((part) => {
    const path =
      existsSync(part) && statSync(part).isDirectory() ? join(part, 'conformance.json') : part;
    return parseJsonText(readFileSync(path, 'utf8'), `report ${path}`) as ConformanceReport;
  });
  const merged = mergeReports(reports);
  const dir = resolve(outDir);
  mkdirSync(dir, { recursive: true });
  writeConformanceFiles(merged, dir);
  log(formatSummary(merged));
  log(
    `\nMerged ${reports.length} reports into ${dir}/{conformance.json (+ .sha256),conformance.html,junit.xml,badge.svg}`,
  );
  // the exit codes of `iotc run` (src/report/exit-code.ts), read off the merged report
  return reportExitCode(merged, 'selection');
}
