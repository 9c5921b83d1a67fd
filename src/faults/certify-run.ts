/**
 * Runs `iotc certify <args> --exec <client>` as a child process (the real command, real sockets) in
 * a report directory of its own and reads its reports back: the exit code, the output, the verdict
 * per requirement and the report files' text. Every child started here is killed when this process
 * ends, on every path (the kill matrix's pool and the test files share this runner).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IotcError } from '../../lib/errors';
import { PACKAGE_ROOT } from '../../lib/package-root';

/**
 * `iotc certify` ended without its reports (it could not start the reference or the client, say).
 */
export class CertifyReportMissingError extends IotcError {
  readonly code = 'IOTC_CERTIFY_REPORT_MISSING';
}

export interface Certified {
  code: number | null;
  output: string;
  verdicts: Record<string, string>;
  report: {
    verdict: string;
    requirements: Array<{
      id: string;
      verdict: string;
      level?: string;
      reason?: string;
      scenarios: unknown[];
    }>;
  };
  /** conformance.json, conformance.html and junit.xml, one after the other. */
  files: string;
}

const alive = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of alive) child.kill('SIGKILL');
});

/**
 * SIGINT or SIGTERM to this process while certifications run ('exit' does not come on a signal):
 * each certification is told to end (SIGTERM: it ends its client under test and exits), then the
 * signal is raised again here, where with the handlers gone it ends this process as it would have.
 */
function interrupted(signal: NodeJS.Signals): void {
  for (const child of alive) child.kill('SIGTERM');
  watchSignals(false);
  process.kill(process.pid, signal);
}

function watchSignals(on: boolean): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    if (on) process.once(signal, interrupted);
    else process.off(signal, interrupted);
}

/**
 * A client under test given by its TypeScript source: node with the checkout's TypeScript hook
 * (lib/ts-register.js, transpiled and cached), as `--exec` runs it.
 */
export function typeScriptClient(file: string): string {
  return `"${process.execPath}" -r "${join(PACKAGE_ROOT, 'lib', 'ts-register.js')}" "${join(PACKAGE_ROOT, file)}"`;
}

export async function certify(
  args: readonly string[],
  exec: string,
  env: Record<string, string>,
): Promise<Certified> {
  const reports = mkdtempSync(join(tmpdir(), 'iotc-certify-'));
  const child = spawn(
    process.execPath,
    [
      join(PACKAGE_ROOT, 'bin', 'iotc.js'),
      'certify',
      ...args,
      '--exec',
      exec,
      '--reports',
      reports,
    ],
    {
      cwd: PACKAGE_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, TS_NODE_PROJECT: join(PACKAGE_ROOT, 'tsconfig.json'), ...env },
    },
  );
  if (alive.size === 0) watchSignals(true);
  alive.add(child);
  try {
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const [code] = (await once(child, 'exit')) as [number | null];
    let text: string;
    try {
      text = readFileSync(join(reports, 'conformance.json'), 'utf8');
    } catch (error) {
      throw new CertifyReportMissingError(
        `iotc certify ${args.join(' ')} exited with ${code} and wrote no conformance.json; its last output: ${output.slice(-600)}`,
        { cause: error },
      );
    }
    const report = JSON.parse(text) as Certified['report'];
    const verdicts = Object.fromEntries(report.requirements.map((r) => [r.id, r.verdict]));
    const files = ['conformance.html', 'junit.xml']
      .map((file) => readFileSync(join(reports, file), 'utf8'))
      .join('\n');
    return { code, output, verdicts, report, files: `${text}\n${files}` };
  } finally {
    // ended already on the ordinary path; killed when reading its output or reports threw
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    alive.delete(child);
    if (alive.size === 0) watchSignals(false);
    rmSync(reports, { recursive: true, force: true });
  }
}
