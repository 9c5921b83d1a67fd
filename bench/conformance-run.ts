/**
 * b) Wall time of the full conformance run (`iotc run`, reports in a temporary folder), and the
 * CLI's start time.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, runIotc } from './children';
import { median } from './rounds';

export const RUN_TIMEOUT_MS = 180_000;

async function timeConformanceRun(env: NodeJS.ProcessEnv): Promise<{
  seconds: number;
  exitCode: number | null;
  summary: string;
}> {
  const reportsDir = mkdtempSync(join(tmpdir(), 'iotc-bench-reports-'));
  const started = process.hrtime.bigint();
  try {
    const { exitCode, output } = await runIotc(
      ['run', '--reports', reportsDir],
      env,
      RUN_TIMEOUT_MS,
    );
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const summary = output
      .split('\n')
      .filter((line) => /^scenarios:|passed|failed|Error|error/.test(line))
      .slice(-4)
      .join('\n');
    return { seconds, exitCode, summary };
  } finally {
    rmSync(reportsDir, { recursive: true, force: true });
  }
}

/**
 * `runs` conformance runs one after the other: the median wall time (one run's time moved by ±0.5 s
 * on the quiet machine, so a single run could not tell 9.7 s from 10.3 s), every run's time, the
 * first failing exit code (else 0), and the last run's summary.
 */
export async function timeConformanceRuns(
  env: NodeJS.ProcessEnv,
  runs: number,
): Promise<{ seconds: number; each: number[]; exitCode: number | null; summary: string }> {
  const each: number[] = [];
  let exitCode: number | null = 0;
  let summary = '';
  for (let index = 0; index < runs; index++) {
    const run = await timeConformanceRun(env);
    each.push(run.seconds);
    if (exitCode === 0) exitCode = run.exitCode;
    summary = run.summary;
  }
  return { seconds: median(each), each, exitCode, summary };
}

/**
 * CLI start: `iotc --help` from the compiled package (dist/, built first) against a bare `node -e
 * ''` in the same rounds, median of 5 each. The goal is the absolute one of issue 14 (under 0.3 s),
 * checked here and not in a test.
 */
export function cliStart(): { compiledMs: number; sourceMs: number; bareMs: number } {
  // a clean build: files of modules since moved or deleted would stay in dist/ and load as steps
  // (AMBIGUOUS)
  rmSync(join(ROOT, 'dist'), { recursive: true, force: true });
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
