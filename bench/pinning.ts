/**
 * Client and server on their own cores (`taskset`, util-linux): a headroom line's client (autocannon,
 * the MQTT driver, the load generator) runs on the first CPU, the servers it compares on the last.
 *
 * Why (issue 29 item 5, bench/README.md "Steadier headroom lines"): on the 2-core machine an
 * unpinned client and server share whichever core the scheduler picks. A server's write on loopback
 * wakes the client, which may preempt the server on its own core (the write then costs the server
 * the client's time), and whether it does changes from round to round with the scheduler's choices:
 * a source of spread in the method, not in the platform. Pinned, each side has its core, and the two
 * servers being compared get the same one. Other processes on the machine still compete for both
 * cores; what they do to one round the alternation of rounds shares out.
 *
 * Off with BENCH_PIN=0, and where `taskset` is missing or the process sees fewer than two CPUs (the
 * lines then run as before). Linux only.
 */
import { execFileSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { availableParallelism } from 'node:os';
import { delimiter, join } from 'node:path';

/** taskset on the PATH (or where Debian puts it), on Linux; undefined elsewhere. */
function findTaskset(): string | undefined {
  if (process.platform !== 'linux') return undefined;
  for (const dir of [...(process.env.PATH ?? '').split(delimiter), '/usr/bin', '/bin']) {
    if (!dir) continue;
    try {
      accessSync(join(dir, 'taskset'), constants.X_OK);
      return join(dir, 'taskset');
    } catch {
      // not here
    }
  }
  return undefined;
}

const TASKSET = findTaskset();

/** The CPUs this process may use, when it may pin (taskset present and working, not off). */
const CPUS =
  TASKSET !== undefined && availableParallelism() >= 2 && process.env.BENCH_PIN !== '0'
    ? allowedCpusOrNone()
    : [];

/** Whether the headroom lines pin their processes (two CPUs or more to choose from). */
export const PINNING = CPUS.length >= 2;

/** The CPUs this process may run on (`taskset -c -p`), none when taskset cannot tell. */
function allowedCpusOrNone(): number[] {
  try {
    return allowedCpus();
  } catch {
    return [];
  }
}

/** The CPUs this process may run on, as `taskset -c` lists them (e.g. `0,1`). */
function allowedCpus(): number[] {
  const listed = execFileSync(TASKSET as string, ['-c', '-p', String(process.pid)], {
    encoding: 'utf8',
  });
  const list = listed.slice(listed.lastIndexOf(':') + 1).trim();
  const cpus: number[] = [];
  for (const part of list.split(',')) {
    const [from, to = from] = part.split('-').map(Number);
    for (let cpu = from; cpu <= to; cpu++) cpus.push(cpu);
  }
  return cpus;
}

/** The client's CPU and the servers' CPU (the first and the last this process may use). */
export const CLIENT_CPU = CPUS[0];
export const SERVER_CPU = CPUS[CPUS.length - 1];

/** What a server is started with: `taskset -c <server CPU> node ...` when pinning, else node. */
export function serverCommand(args: string[]): { file: string; args: string[] } {
  if (!PINNING || CLIENT_CPU === SERVER_CPU) return { file: process.execPath, args };
  return { file: TASKSET as string, args: ['-c', String(SERVER_CPU), process.execPath, ...args] };
}

/** Sets the CPUs of every thread of this process (`taskset -a -p -c`). */
function pinThisProcess(cpus: string): void {
  execFileSync(TASKSET as string, ['-a', '-p', '-c', cpus, String(process.pid)], {
    stdio: 'ignore',
  });
}

/**
 * Runs `measure` with this process (the client: autocannon, the MQTT driver) on the client CPU,
 * children it starts meanwhile included; the CPUs it had are given back after.
 */
export async function onClientCpu<T>(measure: () => Promise<T>): Promise<T> {
  if (!PINNING || CLIENT_CPU === SERVER_CPU) return measure();
  pinThisProcess(String(CLIENT_CPU));
  try {
    return await measure();
  } finally {
    pinThisProcess(CPUS.join(','));
  }
}

/** How the line's processes were placed, for its heading. */
export function placement(): string {
  return PINNING && CLIENT_CPU !== SERVER_CPU
    ? `client on CPU ${CLIENT_CPU}, servers on CPU ${SERVER_CPU} (taskset; BENCH_PIN=0 for none)`
    : 'client and servers unpinned (no taskset, one CPU, or BENCH_PIN=0)';
}
