/**
 * b) Wall time of the full conformance run (`iotc run`, reports in a temporary folder), and the CLI's start time.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { children, ROOT } from './children';
import { median } from './rounds';

export const RUN_TIMEOUT_MS = 180_000;

export function timeConformanceRun(env: NodeJS.ProcessEnv): Promise<{
  seconds: number;
  exitCode: number | null;
  summary: string;
}> {
  const reportsDir = mkdtempSync(join(tmpdir(), 'iotc-bench-reports-'));
  const started = process.hrtime.bigint();
  const child = spawn(
    process.execPath,
    [join(ROOT, 'bin', 'iotc.js'), 'run', '--reports', reportsDir],
    {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.add(child);
  let output = '';
  const collect = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-8000));
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  return new Promise((resolveRun) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
    const finish = (exitCode: number | null) => {
      clearTimeout(timer);
      children.delete(child);
      rmSync(reportsDir, { recursive: true, force: true });
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const summary = output
        .split('\n')
        .filter((line) => /^scenarios:|passed|failed|Error|error/.test(line))
        .slice(-4)
        .join('\n');
      resolveRun({ seconds, exitCode, summary });
    };
    child.once('exit', (code) => finish(code));
    child.once('error', () => finish(null));
  });
}

/**
 * CLI start: `iotc --help` from the compiled package (dist/, built first) against a bare `node -e ''` in the same
 * rounds, median of 5 each. The goal is the absolute one of issue 14 (under 0.3 s), checked here and not in a test.
 */
export function cliStart(): { compiledMs: number; sourceMs: number; bareMs: number } {
  execFileSync(
    process.execPath,
    [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
    {
      cwd: ROOT,
      stdio: 'ignore',
    },
  );
  const time = (args: string[], env: NodeJS.ProcessEnv = process.env) => {
    const started = process.hrtime.bigint();
    execFileSync(process.execPath, args, { cwd: ROOT, env, stdio: 'ignore' });
    return Number(process.hrtime.bigint() - started) / 1e6;
  };
  const compiled: number[] = [];
  const source: number[] = [];
  const bare: number[] = [];
  for (let round = 0; round < 5; round++) {
    compiled.push(
      time([join(ROOT, 'bin', 'iotc.js'), '--help'], { ...process.env, IOTC_COMPILED: '1' }),
    );
    source.push(
      time([join(ROOT, 'bin', 'iotc.js'), '--help'], { ...process.env, IOTC_COMPILED: '0' }),
    );
    bare.push(time(['-e', '']));
  }
  return { compiledMs: median(compiled), sourceMs: median(source), bareMs: median(bare) };
}
