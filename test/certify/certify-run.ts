/**
 * Runs `iotc certify <args>` as a child process (the real command, real sockets) in a report directory of its own
 * and reads its reports back: the exit code, the output, the verdict per requirement and the report files' text.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, exitOf, spawnIotc } from '../support/children';

/** A test client under test/certify/, run by node with ts-node as `--exec` runs it. */
export function testClient(file: string): string {
  return `"${process.execPath}" -r ts-node/register/transpile-only "${join(ROOT, 'test', 'certify', file)}"`;
}

export interface Certified {
  code: number | null;
  output: string;
  verdicts: Record<string, string>;
  report: {
    verdict: string;
    requirements: Array<{ id: string; verdict: string; reason?: string; scenarios: unknown[] }>;
  };
  /** conformance.json, conformance.html and junit.xml, one after the other. */
  files: string;
}

export async function certify(
  args: string[],
  exec: string,
  env: Record<string, string>,
): Promise<Certified> {
  const reports = mkdtempSync(join(tmpdir(), 'iotc-certify-'));
  try {
    const child = spawnIotc(['certify', ...args, '--exec', exec, '--reports', reports], {
      env: { ...process.env, TS_NODE_PROJECT: join(ROOT, 'tsconfig.json'), ...env },
    });
    const { code, output } = await exitOf(child);
    const text = readFileSync(join(reports, 'conformance.json'), 'utf8');
    const report = JSON.parse(text) as Certified['report'];
    const verdicts = Object.fromEntries(report.requirements.map((r) => [r.id, r.verdict]));
    const files = ['conformance.html', 'junit.xml']
      .map((file) => readFileSync(join(reports, file), 'utf8'))
      .join('\n');
    return { code, output, verdicts, report, files: `${text}\n${files}` };
  } finally {
    rmSync(reports, { recursive: true, force: true });
  }
}
