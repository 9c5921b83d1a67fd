/**
 * h) iotc beside the tools a user would pick instead, each against the same sink in the same run,
 * in alternating rounds (issue 29 item 3):
 *  - HTTP telemetry at the highest rate, BENCH_PEER_IN_FLIGHT requests in flight (default 64):
 *    `iotc load http-telemetry` (--concurrency) and k6 (constant-vus, one request in flight per VU)
 *    → one `iotc simulate`; messages answered 2xx per CPU-second of the generator process (user +
 *    system, start-up included, children included: GNU time's rusage of the process) and per GB of
 *    its peak resident memory. Goal: iotc ahead.
 *  - HTTP telemetry at a fixed rate, the same in-flight cap: iotc's p50 latency over k6's
 *    (constant-arrival-rate), the median of the per-round ratios, each round's pair printed. Goal:
 *    within 1.5×, arrivals spaced evenly. Latency at a rate compares like with like only when both
 *    sent what the rate asked: the rounds start at BENCH_PEER_RATE (default 3,000/s) and step down
 *    to two thirds and a third of it (2,000, 1,000) while a side sent less than 95 % of it in a
 *    round; the line is judged at the highest rate both carried in every round, and gives no
 *    verdict when none was.
 *  - MQTT QoS 1, BENCH_PEER_MQTT_CLIENTS clients (default 10), 100-byte payloads, one message in
 *    flight per client, MQTT 3.1.1: `iotc load mqtt-gateway` (one gateway per client, one device
 *    each, --window 1) and mqtt-benchmark → a plain mosquitto; messages acknowledged per CPU-second
 *    of the generator. Goal: iotc ahead.
 * Each peer is looked for on the PATH; a line whose peer (or GNU time, which measures the CPU) is
 * missing is skipped with the way to install it. A line whose rounds differ by more than ±15 % from
 * their median gives no verdict (the machine was too noisy). Every child is killed on every way
 * out.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { accessSync, constants, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, connect } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { LoadReport } from '../load/contract';
import { createDevices } from '../load/device-fleet';
import { AdminClient } from '../src/admin-client';
import { CleanupJournal } from '../src/target/journal';
import { children, positiveEnv, ROOT, startSimulate, stopServer } from './children';
import { median } from './rounds';

export const PEER_ROUNDS = positiveEnv('BENCH_PEER_ROUNDS', 3);
export const PEER_DURATION_S = positiveEnv('BENCH_PEER_DURATION_S', 10);
const IN_FLIGHT = positiveEnv('BENCH_PEER_IN_FLIGHT', 64);
const FIXED_RATE = positiveEnv('BENCH_PEER_RATE', 3000);
/**
 * The fixed rates tried, highest first, until both sides carry one in every round: on the quiet
 * machine k6 sent only 92–94 % of 3,000/s in two of three rounds, which left the line without a
 * verdict.
 */
const FIXED_RATES = [...new Set([1, 2 / 3, 1 / 3].map((part) => Math.round(FIXED_RATE * part)))];
/** A side carried a rate when it sent at least this share of it. */
const CARRIED = 0.95;
/** Sets of alternating rounds the peer lines run at most (run.ts's time limit). */
export const PEER_ROUND_SETS = 2 + FIXED_RATES.length;
const MQTT_CLIENTS = positiveEnv('BENCH_PEER_MQTT_CLIENTS', 10);
const HTTP_DEVICES = 10;
const GOAL_LATENCY_RATIO = 1.5;
/** Rounds within ±15 % of their median, or no verdict. */
export const STEADY_SPREAD = 0.15;

const INSTALL = {
  k6: 'go install go.k6.io/k6@v1.8.1 (then put $(go env GOPATH)/bin on the PATH)',
  'mqtt-benchmark':
    'git clone https://github.com/krylovsk/mqtt-benchmark && cd mqtt-benchmark && go install . (then put $(go env GOPATH)/bin on the PATH)',
  mosquitto: 'apt-get install -y mosquitto (Debian; the broker is /usr/sbin/mosquitto)',
  time: 'apt-get install -y time (GNU time measures the CPU and memory of each generator)',
} as const;

/** The executable `name` on the PATH (and /usr/sbin, where Debian puts mosquitto), or undefined. */
export function onPath(name: string): string | undefined {
  for (const dir of [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/bin']) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Whether every value is within ±STEADY_SPREAD of their median, and how far the farthest is. */
export function steadiness(values: number[]): { steady: boolean; spread: number } {
  const middle = median(values);
  const spread = Math.max(...values.map((value) => Math.abs(value / middle - 1)));
  return { steady: spread <= STEADY_SPREAD, spread };
}

const load = () =>
  loadavg()
    .map((value) => value.toFixed(1))
    .join(' ');

interface Timed {
  exitCode: number | null;
  /** User + system CPU seconds of the process and the children it waited for. */
  cpuS: number;
  /** Peak resident memory (bytes). */
  maxRss: number;
  output: string;
}

/** Runs a command to its end under GNU time (killed after `limitMs`). */
function timed(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  limitMs: number,
): Promise<Timed> {
  const dir = mkdtempSync(join(tmpdir(), 'iotc-bench-time-'));
  const file = join(dir, 'time');
  const child = spawn(
    onPath('time') ?? '/usr/bin/time',
    ['-f', '%U %S %M', '-o', file, command, ...args],
    {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.add(child);
  let output = '';
  const collect = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-6000));
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  return new Promise((resolveRun) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), limitMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      children.delete(child);
      let cpuS = Number.NaN;
      let maxRss = Number.NaN;
      try {
        const last = readFileSync(file, 'utf8').trim().split('\n').at(-1) ?? '';
        const [user, system, rssKiB] = last.split(/\s+/).map(Number);
        cpuS = user + system;
        maxRss = rssKiB * 1024;
      } catch {
        // killed before GNU time wrote: NaN says not measured
      }
      rmSync(dir, { recursive: true, force: true });
      resolveRun({ exitCode: code, cpuS, maxRss, output });
    });
  });
}

interface Round {
  messages: number;
  cpuS: number;
  maxRss: number;
  p50: number;
  p99: number;
  failures: number;
  /** iotc only: the median wait in the generator before the write (ms). */
  queuedP50?: number;
  /**
   * Sent over what the rate asked for (iotc's schedule_kept; k6's iterations over iterations and
   * dropped ones).
   */
  scheduleKept?: number;
}

const perCpu = (round: Round) => round.messages / Math.max(round.cpuS, 0.001);
const perGb = (round: Round) => round.messages / (round.maxRss / 1e9);

function iotcEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    NODE_ENV: 'production',
    IOTC_BENCH_TENANT_USER: 'tenant@thingsboard.org',
    IOTC_BENCH_TENANT_PASSWORD: 'tenant',
  };
}

/** `iotc load <args>` under GNU time; its report's counts and latency. */
async function iotcRound(profile: string, args: string[], env = iotcEnv()): Promise<Round> {
  const reports = mkdtempSync(join(tmpdir(), 'iotc-bench-peer-'));
  try {
    const run = await timed(
      process.execPath,
      [
        join(ROOT, 'bin', 'iotc.js'),
        'load',
        profile,
        ...args,
        '-r',
        reports,
        '--no-default-thresholds',
      ],
      { ...env, IOTC_STATE_DIR: join(reports, 'state') },
      PEER_DURATION_S * 1000 + 120_000,
    );
    let report: LoadReport;
    try {
      report = JSON.parse(readFileSync(join(reports, 'load', `${profile}.json`), 'utf8'));
    } catch {
      throw new Error(
        `iotc load ${profile} wrote no report (exit ${run.exitCode}):\n${run.output.trim().split('\n').slice(-6).join('\n')}`,
      );
    }
    return {
      messages: report.totals.succeeded,
      cpuS: run.cpuS,
      maxRss: run.maxRss,
      p50: report.latency?.p50 ?? Number.NaN,
      p99: report.latency?.p99 ?? Number.NaN,
      failures: report.totals.errorCount,
      queuedP50: (report.metrics.queued_p50 as number | null) ?? undefined,
      scheduleKept: (report.metrics.schedule_kept as number | null) ?? undefined,
    };
  } finally {
    rmSync(reports, { recursive: true, force: true });
  }
}

/**
 * The k6 script: POSTs one device's telemetry per iteration, round robin over the tokens; a JSON
 * summary.
 */
const K6_SCRIPT = `
import http from 'k6/http';
const tokens = __ENV.TOKENS.split(',');
const vus = Number(__ENV.VUS);
const duration = __ENV.DURATION + 's';
export const options = {
  scenarios: {
    telemetry: __ENV.RATE
      ? { executor: 'constant-arrival-rate', rate: Number(__ENV.RATE), timeUnit: '1s', duration, preAllocatedVUs: vus, maxVUs: vus }
      : { executor: 'constant-vus', vus, duration },
  },
  discardResponseBodies: true,
  summaryTrendStats: ['med', 'p(99)'],
};
let seq = 0;
export default function () {
  seq++;
  const token = tokens[(__VU + seq) % tokens.length];
  http.post(__ENV.BASE + '/api/v1/' + token + '/telemetry', '{"ts":' + Date.now() + ',"values":{"seq":' + seq + '}}', {
    headers: { 'Content-Type': 'application/json' },
  });
}
export function handleSummary(data) {
  return { [__ENV.SUMMARY]: JSON.stringify(data.metrics) };
}
`;

async function k6Round(
  k6: string,
  script: string,
  base: string,
  tokens: string[],
  rate?: number,
): Promise<Round> {
  const dir = mkdtempSync(join(tmpdir(), 'iotc-bench-k6-'));
  const summary = join(dir, 'summary.json');
  try {
    const run = await timed(
      k6,
      ['run', '--quiet', '--no-color', '--no-usage-report', script],
      {
        ...process.env,
        BASE: base,
        TOKENS: tokens.join(','),
        VUS: String(IN_FLIGHT),
        DURATION: String(PEER_DURATION_S),
        SUMMARY: summary,
        ...(rate ? { RATE: String(rate) } : {}),
      },
      PEER_DURATION_S * 1000 + 60_000,
    );
    let metrics: Record<string, { values: Record<string, number> }>;
    try {
      metrics = JSON.parse(readFileSync(summary, 'utf8'));
    } catch {
      throw new Error(
        `k6 wrote no summary (exit ${run.exitCode}):\n${run.output.trim().split('\n').slice(-6).join('\n')}`,
      );
    }
    const requests = metrics.http_reqs?.values.count ?? 0;
    const failed = metrics.http_req_failed?.values.passes ?? 0;
    const duration = metrics.http_req_duration?.values ?? {};
    const dropped = metrics.dropped_iterations?.values.count ?? 0;
    return {
      messages: requests - failed,
      cpuS: run.cpuS,
      maxRss: run.maxRss,
      p50: duration.med,
      p99: duration['p(99)'],
      failures: failed,
      scheduleKept: requests + dropped > 0 ? requests / (requests + dropped) : undefined,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface PeerLine {
  ok: boolean;
  lines: string[];
}

const fmt = (value: number, digits = 0) =>
  Number.isFinite(value)
    ? value.toLocaleString('en-US', {
        maximumFractionDigits: digits,
        minimumFractionDigits: digits,
      })
    : 'n/a';
const mb = (bytes: number) => fmt(bytes / 1048576, 0);

/** ROUNDS rounds, iotc first in odd rounds, the peer first in even ones. */
async function alternate(
  iotc: () => Promise<Round>,
  peer: () => Promise<Round>,
): Promise<Array<{ iotc: Round; peer: Round; load: string }>> {
  const rounds: Array<{ iotc: Round; peer: Round; load: string }> = [];
  for (let round = 1; round <= PEER_ROUNDS; round++) {
    const result: Partial<{ iotc: Round; peer: Round }> = {};
    for (const side of round % 2 ? (['iotc', 'peer'] as const) : (['peer', 'iotc'] as const))
      result[side] = await (side === 'iotc' ? iotc : peer)();
    rounds.push({ ...(result as { iotc: Round; peer: Round }), load: load() });
  }
  return rounds;
}

/** A side's share of the rate sent, as a percentage (100 % when the side has no schedule). */
const kept = (round: Round) => `${Math.round((round.scheduleKept ?? 1) * 100)} %`;

function roundLines(
  rounds: Array<{ iotc: Round; peer: Round; load: string }>,
  peerName: string,
  /** At a fixed rate: each side's share of the rate sent, and iotc's wait in the generator. */
  rate?: number,
): string[] {
  const atRate = (round: Round) =>
    rate === undefined
      ? ''
      : `, sent ${kept(round)} of ${fmt(rate)}/s${round.queuedP50 === undefined ? '' : ` (queued p50 ${fmt(round.queuedP50, 2)} ms apart)`}`;
  return rounds.map(
    ({ iotc, peer, load: average }, i) =>
      `      round ${i + 1}: iotc ${fmt(iotc.messages)} msg, ${fmt(iotc.cpuS, 2)} CPU-s, ${fmt(perCpu(iotc))}/CPU-s, peak ${mb(iotc.maxRss)} MB, p50/p99 ${fmt(iotc.p50, 2)}/${fmt(iotc.p99, 1)} ms${atRate(iotc)}; ${peerName} ${fmt(peer.messages)} msg, ${fmt(peer.cpuS, 2)} CPU-s, ${fmt(perCpu(peer))}/CPU-s, peak ${mb(peer.maxRss)} MB, p50/p99 ${fmt(peer.p50, 2)}/${fmt(peer.p99, 1)} ms${atRate(peer)}; failures ${iotc.failures + peer.failures}; load average ${average}`,
  );
}

/**
 * The verdict of a ratio goal over rounds (every ratio line of the bench): FAIL whenever a message
 * failed; PASS/FAIL on the median ratio when the rounds are steady (within ±STEADY_SPREAD of their
 * median). Rounds that spread wider still decide when every one of them falls on the same side of
 * the goal: the machine's noise moved them, but turned none; INFO (no verdict) when they straddle
 * it.
 */
export function ratioVerdict(
  ratios: number[],
  holds: (ratio: number) => boolean,
  failures: number,
): { word: 'PASS' | 'FAIL' | 'INFO'; ok: boolean; note: string } {
  const rounds = `rounds ${ratios.map((ratio) => ratio.toFixed(2)).join(', ')}`;
  if (failures > 0) return { word: 'FAIL', ok: false, note: `${failures} failed; ${rounds}` };
  const { steady, spread } = steadiness(ratios);
  if (steady) {
    const ok = holds(median(ratios));
    return { word: ok ? 'PASS' : 'FAIL', ok, note: rounds };
  }
  const spreadWords = `${rounds} differ by up to ${Math.round(spread * 100)} % from their median (more than ±${STEADY_SPREAD * 100} %)`;
  const held = ratios.filter(holds).length;
  if (held === ratios.length)
    return { word: 'PASS', ok: true, note: `${spreadWords}, but every one meets the goal` };
  if (held === 0)
    return { word: 'FAIL', ok: false, note: `${spreadWords}, but every one misses the goal` };
  return {
    word: 'INFO',
    ok: true,
    note: `${spreadWords}, on both sides of the goal: the machine was too noisy, no verdict`,
  };
}

type Rounds = Array<{ iotc: Round; peer: Round; load: string }>;

/**
 * The fixed-rate line: alternating rounds at each of FIXED_RATES in turn, down to the first that
 * both sides carried (sent CARRIED of it) in every round; judged there on the median of the
 * per-round p50 ratios, each round's pair printed (the two sides' own medians can come from
 * different rounds: 2.88 and 2.96 ms printed beside a ratio of 1.62). Failed requests at any rate
 * fail it; no verdict when no rate was carried.
 */
async function fixedRateLine(
  iotc: (rate: number) => () => Promise<Round>,
  peer: (rate: number) => () => Promise<Round>,
): Promise<PeerLine> {
  const lines: string[] = [];
  const carried = ({ iotc: a, peer: b }: Rounds[number]) =>
    (a.scheduleKept ?? 1) >= CARRIED && (b.scheduleKept ?? 1) >= CARRIED;
  const notCarried: string[] = [];
  let failures = 0;
  let judged: { rate: number; rounds: Rounds } | undefined;
  for (const rate of FIXED_RATES) {
    const rounds = await alternate(iotc(rate), peer(rate));
    lines.push(`      at ${fmt(rate)}/s:`, ...roundLines(rounds, 'k6', rate));
    failures += rounds.reduce((sum, round) => sum + round.iotc.failures + round.peer.failures, 0);
    if (rounds.every(carried)) {
      judged = { rate, rounds };
      break;
    }
    notCarried.push(
      `at ${fmt(rate)}/s a side sent less than ${CARRIED * 100} % of the rate in ${rounds.filter((round) => !carried(round)).length} of ${rounds.length} rounds (iotc ${rounds.map((round) => kept(round.iotc)).join(', ')}; k6 ${rounds.map((round) => kept(round.peer)).join(', ')})`,
    );
  }
  const why = notCarried.length ? `; ${notCarried.join('; ')}` : '';
  if (!judged) {
    const word = failures ? 'FAIL' : 'INFO';
    lines.push(
      `${word}  HTTP telemetry at a fixed rate → iotc simulate, p50 latency iotc/k6 (goal <= ${GOAL_LATENCY_RATIO}): no rate down to ${fmt(FIXED_RATES.at(-1) as number)}/s was carried by both sides in every round, the machine did not carry it, no verdict${why}; failed requests ${failures}; load average ${load()}`,
    );
    return { ok: failures === 0, lines };
  }
  const { rate, rounds } = judged;
  const ratios = rounds.map(({ iotc: a, peer: b }) => a.p50 / b.p50);
  const verdict = ratioVerdict(ratios, (ratio) => ratio <= GOAL_LATENCY_RATIO, failures);
  const pairs = rounds
    .map(
      ({ iotc: a, peer: b }, i) => `${fmt(a.p50, 2)}/${fmt(b.p50, 2)} ms = ${ratios[i].toFixed(2)}`,
    )
    .join(', ');
  lines.push(
    `${verdict.word}  HTTP telemetry at a fixed ${fmt(rate)}/s → iotc simulate (${rate === FIXED_RATE ? 'the rate asked' : `the highest rate of ${FIXED_RATES.map((each) => fmt(each)).join(', ')}/s both sides sent ${CARRIED * 100} % of in every round`}), p50 latency iotc/k6, the median of the per-round ratios: ${median(ratios).toFixed(2)} (goal <= ${GOAL_LATENCY_RATIO}); each round's p50s iotc/k6 (iotc's write→answer, its wait in the generator apart): ${pairs}; ${verdict.note}${why}; load average ${load()}`,
  );
  return { ok: verdict.ok, lines };
}

async function httpPeerLines(k6: string): Promise<PeerLine> {
  const sink = await startSimulate();
  const dir = mkdtempSync(join(tmpdir(), 'iotc-bench-http-peer-'));
  const lines: string[] = [];
  try {
    const profilePath = join(dir, 'simulate.json');
    writeFileSync(
      profilePath,
      JSON.stringify({
        name: 'bench-simulate',
        platform: {
          http: sink.url,
          mqtt: sink.ready.mqttUrl,
          tenantAdmin: {
            username: '${env:IOTC_BENCH_TENANT_USER}',
            password: '${env:IOTC_BENCH_TENANT_PASSWORD}',
          },
        },
        capabilities: [],
        namePrefix: 'iotc-bench-',
      }),
    );
    const script = join(dir, 'k6-telemetry.js');
    writeFileSync(script, K6_SCRIPT);
    // k6's devices, made as iotc makes its own: created through the admin API, each with its token
    const admin = await AdminClient.login(sink.url, {
      username: 'tenant@thingsboard.org',
      password: 'tenant',
    });
    let tokens: string[];
    try {
      const names = Array.from({ length: HTTP_DEVICES }, (_, i) => `bench-k6-d${i}`);
      tokens = (
        await createDevices(
          admin,
          new CleanupJournal(join(dir, 'journal.jsonl'), 'bench'),
          names,
          new AbortController().signal,
        )
      ).map((device) => device.token);
    } finally {
      await admin.close();
    }
    const iotcArgs = (rate: number, seconds = PEER_DURATION_S) => [
      '--target',
      profilePath,
      '-n',
      String(HTTP_DEVICES),
      '--rate',
      String(rate),
      '--concurrency',
      String(IN_FLIGHT),
      '--duration',
      String(seconds),
      '--sample',
      '1',
    ];
    const iotc = (rate: number) => () => iotcRound('http-telemetry', iotcArgs(rate));
    const peer = (rate?: number) => () => k6Round(k6, script, sink.url, tokens, rate);
    // the sink's warm-up: its first seconds run slower
    await iotcRound('http-telemetry', iotcArgs(1_000_000, 2));

    const max = await alternate(iotc(1_000_000), peer());
    lines.push(...roundLines(max, 'k6'));
    const ratios = max.map(({ iotc: mine, peer: theirs }) => perCpu(mine) / perCpu(theirs));
    const failures = max.reduce((sum, round) => sum + round.iotc.failures + round.peer.failures, 0);
    const mine = median(max.map((round) => perCpu(round.iotc)));
    const theirs = median(max.map((round) => perCpu(round.peer)));
    const gbRatio = median(max.map(({ iotc: a, peer: b }) => perGb(a) / perGb(b)));
    const maxVerdict = ratioVerdict(ratios, (ratio) => ratio > 1, failures);
    lines.push(
      `${maxVerdict.word}  HTTP telemetry at the highest rate, ${IN_FLIGHT} in flight → iotc simulate, messages per CPU-second of the generator (start-up included): iotc ${fmt(mine)}, k6 ${fmt(theirs)}, iotc/k6 ${median(ratios).toFixed(2)} (goal > 1: iotc ahead); per GB of peak memory iotc/k6 ${gbRatio.toFixed(2)}; ${maxVerdict.note}; load average ${load()}`,
    );

    const fixed = await fixedRateLine(iotc, peer);
    lines.push(...fixed.lines);
    return { ok: maxVerdict.ok && fixed.ok, lines };
  } finally {
    await stopServer(sink);
    rmSync(dir, { recursive: true, force: true });
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

/**
 * A plain mosquitto on a free loopback port (anonymous, no persistence), ready once it accepts a
 * connection.
 */
async function startMosquitto(mosquitto: string, dir: string) {
  const port = await freePort();
  const config = join(dir, 'mosquitto.conf');
  writeFileSync(
    config,
    `listener ${port} 127.0.0.1\nallow_anonymous true\npersistence false\nlog_dest none\n`,
  );
  const child = spawn(mosquitto, ['-c', config], { stdio: 'ignore' });
  children.add(child);
  child.once('exit', () => children.delete(child));
  for (let attempt = 0; ; attempt++) {
    const reachable = await new Promise<boolean>((resolveTry) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolveTry(true);
      });
      socket.once('error', () => resolveTry(false));
    });
    if (reachable) break;
    if (attempt > 100 || child.exitCode !== null) {
      child.kill('SIGKILL');
      throw new Error(`mosquitto did not listen on ${port}`);
    }
    await new Promise((resolveWait) => setTimeout(resolveWait, 50));
  }
  return {
    url: `mqtt://127.0.0.1:${port}`,
    port,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function mqttBenchmarkRound(
  binary: string,
  port: number,
  perClient: number,
): Promise<Round & { seconds: number }> {
  const run = await timed(
    binary,
    [
      '-broker',
      `tcp://127.0.0.1:${port}`,
      '-clients',
      String(MQTT_CLIENTS),
      '-count',
      String(perClient),
      '-size',
      '100',
      '-qos',
      '1',
      '-message-interval',
      '0',
      '-format',
      'json',
      '-quiet',
    ],
    process.env,
    PEER_DURATION_S * 1000 * 6 + 60_000,
  );
  let totals: Record<string, number>;
  try {
    totals = (
      JSON.parse(run.output.slice(run.output.indexOf('{'))) as { totals: Record<string, number> }
    ).totals;
  } catch {
    throw new Error(
      `mqtt-benchmark printed no JSON (exit ${run.exitCode}):\n${run.output.trim().split('\n').slice(-6).join('\n')}`,
    );
  }
  const messages = totals.successes ?? 0;
  return {
    messages,
    cpuS: run.cpuS,
    maxRss: run.maxRss,
    // mqtt-benchmark gives the mean and the highest publish→PUBACK time, no percentiles
    p50: totals.msg_time_mean_avg ?? Number.NaN,
    p99: totals.msg_time_max ?? Number.NaN,
    failures: totals.failures ?? 0,
    seconds: messages / Math.max(totals.total_msgs_per_sec ?? 1, 1),
  };
}

async function mqttPeerLines(binary: string, mosquitto: string): Promise<PeerLine> {
  const dir = mkdtempSync(join(tmpdir(), 'iotc-bench-mqtt-peer-'));
  const broker = await startMosquitto(mosquitto, dir);
  const lines: string[] = [];
  try {
    const env = {
      ...iotcEnv(),
      BENCH_PEER_TOKENS: Array.from({ length: MQTT_CLIENTS }, (_, i) => `bench-${i}`).join(','),
    };
    const iotc =
      (seconds = PEER_DURATION_S) =>
      () =>
        iotcRound(
          'mqtt-gateway',
          [
            '--mqtt-url',
            broker.url,
            '--gateway-token-env',
            'BENCH_PEER_TOKENS',
            '-g',
            String(MQTT_CLIENTS),
            '-d',
            '1',
            '--total-rate',
            '1000000',
            '--window',
            '1',
            '--qos',
            '1',
            '--mqtt-version',
            '3.1.1',
            '--payload-bytes',
            '100',
            '--duration',
            String(seconds),
          ],
          env,
        );
    // mqtt-benchmark sends a count, not for a time: its count per client is set from a short
    // calibrating run so that a round lasts about as long as iotc's
    const calibration = await mqttBenchmarkRound(binary, broker.port, 2000);
    const warmUp = await iotc(2)();
    // the faster of the two sets the count: a round of mqtt-benchmark then lasts at least about as
    // long as iotc's
    const perSecond = Math.max(
      calibration.messages / Math.max(calibration.seconds, 0.001),
      warmUp.messages / 2,
    );
    const perClient = Math.max(1000, Math.round((perSecond * PEER_DURATION_S) / MQTT_CLIENTS));
    const rounds = await alternate(iotc(), () =>
      mqttBenchmarkRound(binary, broker.port, perClient),
    );
    lines.push(...roundLines(rounds, 'mqtt-benchmark'));
    const ratios = rounds.map(({ iotc: a, peer: b }) => perCpu(a) / perCpu(b));
    const failures = rounds.reduce((sum, r) => sum + r.iotc.failures + r.peer.failures, 0);
    const result = ratioVerdict(ratios, (ratio) => ratio > 1, failures);
    lines.push(
      `${result.word}  MQTT QoS 1, ${MQTT_CLIENTS} clients, 100 B, one message in flight per client → mosquitto, messages per CPU-second of the generator (start-up included): iotc ${fmt(median(rounds.map((r) => perCpu(r.iotc))))}, mqtt-benchmark ${fmt(median(rounds.map((r) => perCpu(r.peer))))}, iotc/mqtt-benchmark ${median(ratios).toFixed(2)} (goal > 1: iotc ahead); per GB of peak memory ${median(rounds.map(({ iotc: a, peer: b }) => perGb(a) / perGb(b))).toFixed(2)}; iotc's PUBACK p50 ${fmt(median(rounds.map((r) => r.iotc.p50)), 2)} ms; ${result.note}; load average ${load()}`,
    );
    return { ok: result.ok, lines };
  } finally {
    await broker.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Prints the peer lines (or why each is skipped); resolves with whether every line measured holds
 * its goal.
 */
export async function peerLines(): Promise<boolean> {
  const time = onPath('time');
  const k6 = onPath('k6');
  const mqttBenchmark = onPath('mqtt-benchmark');
  const mosquitto = onPath('mosquitto');
  let ok = true;
  console.log(
    `Peers: ${PEER_ROUNDS} rounds of ${PEER_DURATION_S} s, alternating; CPU and peak memory of each generator process by GNU time`,
  );
  const skip = (what: string, missing: Array<keyof typeof INSTALL>) =>
    console.log(
      `SKIP  ${what}: ${missing.join(', ')} not found on the PATH; install: ${missing.map((name) => INSTALL[name]).join('; ')}`,
    );
  const missingHttp = (['time', 'k6'] as const).filter((name) => !{ time, k6 }[name]);
  if (missingHttp.length)
    skip('HTTP telemetry beside k6 (highest rate, fixed rate)', [...missingHttp]);
  else {
    const http = await httpPeerLines(k6 as string);
    console.log(http.lines.join('\n'));
    ok &&= http.ok;
  }
  const missingMqtt = (['time', 'mqtt-benchmark', 'mosquitto'] as const).filter(
    (name) => !{ time, 'mqtt-benchmark': mqttBenchmark, mosquitto }[name],
  );
  if (missingMqtt.length) skip('MQTT QoS 1 beside mqtt-benchmark → mosquitto', [...missingMqtt]);
  else {
    const mqtt = await mqttPeerLines(mqttBenchmark as string, mosquitto as string);
    console.log(mqtt.lines.join('\n'));
    ok &&= mqtt.ok;
  }
  return ok;
}

if (require.main === module)
  peerLines()
    .then((ok) => process.exit(ok ? 0 : 1))
    .catch((error: unknown) => {
      console.error(`bench peers: ${(error as Error).message}`);
      process.exit(1);
    });
