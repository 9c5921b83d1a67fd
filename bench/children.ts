/**
 * The bench's child processes: servers started here and awaited on their one-line JSON ready
 * message, and killed on every way out (exit, Ctrl-C, SIGTERM). Also the knobs every line shares
 * (BENCH_* environment variables).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { serverCommand } from './pinning';

export const ROOT = resolve(__dirname, '..');
const READY_TIMEOUT_MS = 30_000;

/** A positive number from the environment, or the fallback. */
export function positiveEnv(name: string, fallback: number): number {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

export const children = new Set<ChildProcess>();

export function killChildren(): void {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
}

process.on('exit', killChildren);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    killChildren();
    process.exit(130);
  });
}

export interface ServerChild {
  process: ChildProcess;
  /** The ready line's `readyKey` (httpUrl, mqttUrl). */
  url: string;
  /** The whole ready line (may hold tokens: never printed). */
  ready: Record<string, unknown>;
}

/** Spawns a server and waits for its one-line JSON ready message carrying `readyKey` (a URL). */
export function startServer(
  label: string,
  args: string[],
  readyKey: 'httpUrl' | 'mqttUrl' = 'httpUrl',
  env: Record<string, string> = {},
  /** A server a headroom line compares: on the servers' CPU when the bench pins (pinning.ts). */
  pinned = false,
): Promise<ServerChild> {
  const command = pinned ? serverCommand(args) : { file: process.execPath, args };
  const child = spawn(command.file, command.args, {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, ...env, NODE_ENV: 'production' },
  });
  children.add(child);
  child.on('exit', () => children.delete(child));
  let stdout = '';
  let stderr = '';
  return new Promise((resolveReady, rejectReady) => {
    const fail = (reason: string) => {
      clearTimeout(timer);
      child.kill('SIGTERM');
      rejectReady(
        new Error(
          `${label} did not start: ${reason}${
            stderr
              ? `\n${stderr
                  .trim()
                  .split('\n')
                  .filter((line) => !/^\s+at /.test(line))
                  .slice(-8)
                  .join('\n')}`
              : ''
          }`,
        ),
      );
    };
    const timer = setTimeout(
      () => fail(`no ready line within ${READY_TIMEOUT_MS} ms`),
      READY_TIMEOUT_MS,
    );
    child.stderr!.on(
      'data',
      (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)),
    );
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      for (const line of stdout.split('\n').slice(0, -1)) {
        try {
          const ready = JSON.parse(line) as Record<string, unknown>;
          const url = ready[readyKey];
          if (typeof url === 'string') {
            clearTimeout(timer);
            child.stdout!.removeAllListeners('data');
            child.stdout!.resume(); // keep draining
            resolveReady({ process: child, url, ready });
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

export function stopServer(server: ServerChild): Promise<void> {
  return new Promise((resolveStop) => {
    if (server.process.exitCode !== null || server.process.signalCode !== null)
      return resolveStop();
    const force = setTimeout(() => server.process.kill('SIGKILL'), 3000);
    server.process.once('exit', () => {
      clearTimeout(force);
      resolveStop();
    });
    server.process.kill('SIGTERM');
  });
}

/** Sends `memory` to the memory child and waits for its answer line. */
export function memoryOf(server: ServerChild): Promise<{ rss: number; heapUsed: number }> {
  return askMemoryChild(server, 'memory', 'memory', 60_000);
}

/** Has the memory child write a heap snapshot to `file` (after a full GC); resolves once written. */
export async function heapSnapshotOf(server: ServerChild, file: string): Promise<void> {
  // a snapshot of a platform holding 10,000 sub-devices takes minutes on a busy machine
  await askMemoryChild<string>(server, `snapshot ${file}`, 'snapshot', 600_000);
}

/** Sends one command line to the memory child and waits for the answer line carrying `key`. */
function askMemoryChild<T>(
  server: ServerChild,
  command: string,
  key: string,
  limitMs: number,
): Promise<T> {
  return new Promise((resolveAnswer, rejectAnswer) => {
    let buffered = '';
    const timer = setTimeout(() => {
      server.process.stdout!.off('data', onData);
      rejectAnswer(
        new Error(`the platform child did not answer ${command} within ${limitMs / 1000} s`),
      );
    }, limitMs);
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString();
      for (const line of buffered.split('\n').slice(0, -1)) {
        try {
          const answer = JSON.parse(line) as Record<string, T>;
          if (answer[key] !== undefined) {
            clearTimeout(timer);
            server.process.stdout!.off('data', onData);
            return resolveAnswer(answer[key]);
          }
        } catch {
          // not the answer
        }
      }
    };
    server.process.stdout!.on('data', onData);
    server.process.stdin!.write(`${command}\n`);
  });
}

/**
 * A bench baseline server (bench/<file>: the bare HTTP server, the MQTT sink) a headroom line
 * compares the reference with, pinned as the reference is. Started through lib/ts-register.js, as
 * the platform (bin/iotc.js) is: ts-node's register loads node:domain, whose EventEmitter hooks
 * cost the bare HTTP server about a fifth of its CPU per request (20 against 25 µs on this
 * machine), a handicap the platform does not carry.
 */
export function startBaselineServer(
  label: string,
  file: string,
  readyKey: 'httpUrl' | 'mqttUrl',
): Promise<ServerChild> {
  return startServer(
    label,
    ['-r', './lib/ts-register.js', join(ROOT, 'bench', file)],
    readyKey,
    {},
    true,
  );
}

/**
 * `iotc simulate` on ports from the OS, with its `--json` ready line (tokens stay in `ready`, never
 * printed).
 */
export function startSimulate(
  readyKey: 'httpUrl' | 'mqttUrl' = 'httpUrl',
  pinned = false,
): Promise<ServerChild> {
  return startServer(
    'reference platform (iotc simulate)',
    [join(ROOT, 'bin', 'iotc.js'), 'simulate', '--http-port', '0', '--mqtt-port', '0', '--json'],
    readyKey,
    {},
    pinned,
  );
}

/**
 * A target profile of a reference child (`iotc simulate` or the memory child) for `iotc load`: its
 * URLs, the demo tenant administrator, bench-prefixed names.
 */
export function referenceProfile(server: ServerChild, name: string): Record<string, unknown> {
  return {
    name,
    platform: {
      http: server.ready.httpUrl,
      mqtt: server.ready.mqttUrl,
      tenantAdmin: { username: 'tenant@thingsboard.org', password: 'tenant' },
    },
    capabilities: ['mqtt5'],
    namePrefix: 'iotc-bench-',
    timeouts: { eventuallyMs: 10_000, pollIntervalMs: 250, requestMs: 30_000 },
  };
}

/**
 * Runs `iotc <args>` to its end (killed after `limitMs`), keeping the last 8,000 characters of its
 * output.
 */
export function runIotc(
  args: string[],
  env: NodeJS.ProcessEnv,
  limitMs: number,
): Promise<{ exitCode: number | null; output: string }> {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'iotc.js'), ...args], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let output = '';
  const collect = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-8000));
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  return new Promise((resolveRun) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), limitMs);
    const finish = (exitCode: number | null) => {
      clearTimeout(timer);
      children.delete(child);
      resolveRun({ exitCode, output });
    };
    child.once('exit', (code) => finish(code));
    child.once('error', () => finish(null));
  });
}

/**
 * The reference platform in a child that can force full GCs (platform-memory-child.ts): the memory
 * lines' target.
 */
export function startPlatformMemoryChild(): ReturnType<typeof startServer> {
  return startServer(
    'reference platform (memory child)',
    [
      '--expose-gc',
      '-r',
      'ts-node/register/transpile-only',
      join(ROOT, 'bench', 'platform-memory-child.ts'),
    ],
    'mqttUrl',
  );
}
