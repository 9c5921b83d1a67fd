/**
 * `npm run bench`: ratios measured side by side in ONE run, so that a noisy, shared machine cancels out.
 *
 *  a) HTTP telemetry throughput of the reference platform ÷ a bare node:http server answering 200.
 *     Each server runs in its own child process (`iotc simulate --http-port 0 --json` and bench/bare-http-child.ts);
 *     autocannon runs here, a third process. Same load for both (POST of the same small JSON body, c connections,
 *     pipelining 1); rounds alternate A/B/A/B, each measurement preceded by a warm-up (the first seconds of a
 *     process run at about half speed, toolchain-notes.md §4). The median of the per-round ratios is reported.
 *     Goal: ≥ 0.5. Every non-2xx answer, error or timeout counts as a failure and fails the check.
 *  c) JSON POSTs per second through the reference REST connector (bench/connector-child.ts, its own process) ÷
 *     direct HTTP device-API telemetry posts per second, same body, same rounds. The connector answers 200 only after
 *     the platform's PUBACK for the device's telemetry, so every counted request was taken by the platform.
 *     Reported, no goal yet (the issue asks for the figure).
 *  b) Wall time of the full conformance run (`node bin/iotc.js run`, reports in a temporary folder). Goal: ≤ 15 s.
 *
 * Knobs (environment): BENCH_ROUNDS (3), BENCH_DURATION_S (4), BENCH_WARMUP_S (1), BENCH_CONNECTIONS (10),
 * BENCH_SKIP_RUN=1 skips b). Every duration is bounded; children are killed on exit, error and Ctrl-C.
 * Tokens and credentials printed by the platform child are never printed here.
 * Exit code: 0 when every goal holds, 1 otherwise.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';

const ROOT = resolve(__dirname, '..');
const ROUNDS = positiveEnv('BENCH_ROUNDS', 3);
const DURATION_S = positiveEnv('BENCH_DURATION_S', 4);
const WARMUP_S = positiveEnv('BENCH_WARMUP_S', 1);
const CONNECTIONS = positiveEnv('BENCH_CONNECTIONS', 10);
const READY_TIMEOUT_MS = 30_000;
const RUN_TIMEOUT_MS = 180_000;
const GOAL_THROUGHPUT_RATIO = 0.5;
const GOAL_RUN_SECONDS = 15;

/** A small realistic telemetry body: a double, a long, a boolean and a string. */
const TELEMETRY_BODY = JSON.stringify({ temperature: 21.5, humidity: 48, active: true, status: 'ok' });

function positiveEnv(name: string, fallback: number): number {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

// ---------------------------------------------------------------------------------------------------------------
// Children: started here, killed on every way out

const children = new Set<ChildProcess>();

function killChildren(): void {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
}

process.on('exit', killChildren);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    killChildren();
    process.exit(130);
  });
}

interface ServerChild {
  process: ChildProcess;
  httpUrl: string;
  /** The whole ready line (may hold tokens: never printed). */
  ready: Record<string, unknown>;
}

/** Spawns a server and waits for its one-line JSON ready message carrying `httpUrl`. */
function startServer(label: string, args: string[], env: Record<string, string> = {}): Promise<ServerChild> {
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...env, NODE_ENV: 'production' } });
  children.add(child);
  child.on('exit', () => children.delete(child));
  let stdout = '';
  let stderr = '';
  return new Promise((resolveReady, rejectReady) => {
    const fail = (reason: string) => {
      clearTimeout(timer);
      child.kill('SIGTERM');
      rejectReady(new Error(`${label} did not start: ${reason}${stderr ? `\n${stderr.trim().split('\n').filter((line) => !/^\s+at /.test(line)).slice(-8).join('\n')}` : ''}`));
    };
    const timer = setTimeout(() => fail(`no ready line within ${READY_TIMEOUT_MS} ms`), READY_TIMEOUT_MS);
    child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      for (const line of stdout.split('\n').slice(0, -1)) {
        try {
          const ready = JSON.parse(line) as Record<string, unknown>;
          if (typeof ready.httpUrl === 'string') {
            clearTimeout(timer);
            child.stdout!.removeAllListeners('data');
            child.stdout!.resume(); // keep draining
            resolveReady({ process: child, httpUrl: ready.httpUrl, ready });
            return;
          }
        } catch {
          // not the ready line
        }
      }
    });
    child.once('exit', (code, signal) => fail(`exited (${signal ?? code}) before it was ready`));
    child.once('error', (error) => fail(error.message));
  });
}

function stopServer(server: ServerChild): Promise<void> {
  return new Promise((resolveStop) => {
    if (server.process.exitCode !== null || server.process.signalCode !== null) return resolveStop();
    const force = setTimeout(() => server.process.kill('SIGKILL'), 3000);
    server.process.once('exit', () => {
      clearTimeout(force);
      resolveStop();
    });
    server.process.kill('SIGTERM');
  });
}

// ---------------------------------------------------------------------------------------------------------------
// a) throughput

interface Measurement {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  /** non-2xx + errors + timeouts */
  failures: number;
  total: number;
}

async function load(url: string, seconds: number, body = TELEMETRY_BODY): Promise<Measurement> {
  const result = await autocannon({
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
    connections: CONNECTIONS,
    pipelining: 1,
    duration: seconds,
    timeout: 10,
  });
  const total = result.requests.total;
  return {
    requestsPerSecond: total / Math.max(result.duration, 0.001),
    p50: result.latency.p50,
    p99: result.latency.p99,
    failures: result.non2xx + result.errors + result.timeouts,
    total,
  };
}

async function measure(url: string, body?: string): Promise<Measurement> {
  await load(url, WARMUP_S, body);
  return load(url, DURATION_S, body);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

interface Side {
  label: string;
  url: string;
  body?: string;
}

/** Rounds of A then B (B then A every other round), each measured after a warm-up; the median ratio A/B. */
async function sideBySide(a: Side, b: Side): Promise<{ ratio: number; failures: number; lines: string[] }> {
  const lines: string[] = [];
  const ratios: number[] = [];
  let failures = 0;
  const row = (cells: string[]) => cells.map((cell, i) => (i === 0 ? cell.padEnd(7) : cell.padStart(14))).join(' ');
  lines.push(row(['round', `${a.label} r/s`, `${b.label} r/s`, 'ratio', `${a.label} p50/p99`, `${b.label} p50/p99`, 'failures']));
  for (let round = 1; round <= ROUNDS; round++) {
    // A/B, then B/A: neither side always gets the quieter second slot.
    const order = round % 2 ? [a, b] : [b, a];
    const results = new Map<Side, Measurement>();
    for (const side of order) results.set(side, await measure(side.url, side.body));
    const onA = results.get(a)!;
    const onB = results.get(b)!;
    const ratio = onA.requestsPerSecond / Math.max(onB.requestsPerSecond, 1);
    ratios.push(ratio);
    failures += onA.failures + onB.failures;
    lines.push(
      row([
        String(round),
        onA.requestsPerSecond.toFixed(0),
        onB.requestsPerSecond.toFixed(0),
        ratio.toFixed(2),
        `${onA.p50}/${onA.p99} ms`,
        `${onB.p50}/${onB.p99} ms`,
        String(onA.failures + onB.failures),
      ]),
    );
  }
  return { ratio: median(ratios), failures, lines };
}

async function throughputRatios(): Promise<{ platform: Awaited<ReturnType<typeof sideBySide>>; connector: Awaited<ReturnType<typeof sideBySide>> }> {
  const platform = await startServer('reference platform (iotc simulate)', [join(ROOT, 'bin', 'iotc.js'), 'simulate', '--http-port', '0', '--mqtt-port', '0', '--json']);
  const servers = [platform];
  try {
    const bare = await startServer('bare node:http server', ['-r', 'ts-node/register/transpile-only', join(ROOT, 'bench', 'bare-http-child.ts')]);
    servers.push(bare);
    const { deviceToken, mqttUrl, gatewayToken } = platform.ready;
    if (typeof deviceToken !== 'string' || !deviceToken) throw new Error('iotc simulate --json gave no deviceToken');
    if (typeof mqttUrl !== 'string' || typeof gatewayToken !== 'string') throw new Error('iotc simulate --json gave no mqttUrl or gatewayToken');
    const connector = await startServer('reference REST connector', ['-r', 'ts-node/register/transpile-only', join(ROOT, 'bench', 'connector-child.ts')], {
      IOTC_BENCH_MQTT_URL: mqttUrl,
      IOTC_BENCH_GATEWAY_TOKEN: gatewayToken,
    });
    servers.push(connector);
    const direct: Side = { label: 'platform', url: `${platform.httpUrl}/api/v1/${encodeURIComponent(deviceToken)}/telemetry` };
    return {
      platform: await sideBySide(direct, { label: 'bare', url: `${bare.httpUrl}/api/v1/bench-token/telemetry` }),
      connector: await sideBySide({ label: 'connector', url: `${connector.httpUrl}/bench` }, direct),
    };
  } finally {
    await Promise.all(servers.reverse().map(stopServer));
  }
}

// ---------------------------------------------------------------------------------------------------------------
// b) wall time of the conformance run

function timeConformanceRun(): Promise<{ seconds: number; exitCode: number | null; summary: string }> {
  const reportsDir = mkdtempSync(join(tmpdir(), 'iotc-bench-reports-'));
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'iotc.js'), 'run', '--reports', reportsDir], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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
      const summary = output.split('\n').filter((line) => /^scenarios:|passed|failed|Error|error/.test(line)).slice(-4).join('\n');
      resolveRun({ seconds, exitCode, summary });
    };
    child.once('exit', (code) => finish(code));
    child.once('error', () => finish(null));
  });
}

// ---------------------------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  const total = 2 * ROUNDS * 2 * (WARMUP_S + DURATION_S);
  console.log(`iotc bench: HTTP telemetry POST, c=${CONNECTIONS} p=1, ${WARMUP_S} s warm-up + ${DURATION_S} s, ${ROUNDS} rounds A/B (~${total} s), then the conformance run`);
  let ok = true;

  const ratios = await throughputRatios();
  const throughput = ratios.platform;
  console.log(throughput.lines.join('\n'));
  const ratioOk = throughput.ratio >= GOAL_THROUGHPUT_RATIO && throughput.failures === 0;
  ok &&= ratioOk;
  console.log(
    `${ratioOk ? 'PASS' : 'FAIL'}  platform/bare throughput, median of ${ROUNDS}: ${throughput.ratio.toFixed(2)} (goal >= ${GOAL_THROUGHPUT_RATIO}), failed requests: ${throughput.failures} (goal 0)`,
  );

  console.log(ratios.connector.lines.join('\n'));
  const connectorOk = ratios.connector.failures === 0;
  ok &&= connectorOk;
  console.log(
    `${connectorOk ? 'INFO' : 'FAIL'}  REST connector JSON POSTs (200 after the platform's PUBACK) / direct device-API telemetry posts, median of ${ROUNDS}: ${ratios.connector.ratio.toFixed(2)}, failed requests: ${ratios.connector.failures} (goal 0)`,
  );

  if (process.env.BENCH_SKIP_RUN === '1') {
    console.log('SKIP  conformance run wall time (BENCH_SKIP_RUN=1)');
  } else {
    const run = await timeConformanceRun();
    const runOk = run.exitCode === 0 && run.seconds <= GOAL_RUN_SECONDS;
    ok &&= runOk;
    if (run.summary) console.log(run.summary.replace(/^/gm, '      '));
    console.log(
      `${runOk ? 'PASS' : 'FAIL'}  conformance run (node bin/iotc.js run) wall time: ${run.seconds.toFixed(1)} s (goal <= ${GOAL_RUN_SECONDS} s), exit code ${run.exitCode ?? 'killed'} (goal 0)`,
    );
  }
  return ok ? 0 : 1;
}

const watchdog = setTimeout(
  () => {
    console.error('bench: overall time limit reached, stopping');
    killChildren();
    process.exit(1);
  },
  (2 * ROUNDS * 2 * (WARMUP_S + DURATION_S + 5) + 90) * 1000 + RUN_TIMEOUT_MS,
);
watchdog.unref();

main()
  .then((code) => {
    killChildren();
    process.exit(code);
  })
  .catch((error: unknown) => {
    console.error(`bench: ${(error as Error).message ?? String(error)}`);
    killChildren();
    process.exit(1);
  });
