/**
 * The workers of a parallel run, started a few at a time.
 *
 * Cucumber forks every worker at once (ChildProcessAdapter.run). A worker loads some 850 modules
 * (and on an embedded target starts its own reference) before its first scenario (about 1.3-1.5
 * CPU-s, bench/README.md "Where a conformance run's CPU goes"); five at once on two cores all
 * waited about 4–7 s for each other before any scenario ran ("Workers from the idle CPU"), while
 * the scenarios themselves mostly wait (token lifetimes, claim windows, RPC timeouts, round trips)
 * and leave the cores idle. Started `atOnce` at a time, each later one when an earlier one is READY
 * (its BeforeAll done) or has ended, the first workers run the slowest features (feature-order.ts)
 * while the others load; against a remote target those are the scenarios that run alone (the device
 * limit's, src/engine/exclusive.ts), which then overlap the other workers' loading instead of
 * following it. Quiet, side by side (bench/README.md, docs/concepts/remote-network.md): the embedded
 * run 15.7 -> 14.3 s and 21.0 -> 19.5 CPU-s; the platform features against `iotc simulate` 15.9 ->
 * 12.7 s on loopback, 30.4 -> 27.4 s through 50 ms each way. *
 * Cucumber has no option for this: the adapter's `run` is replaced here (the one place that forks
 * workers: `startWorker`, which this calls as cucumber does). The version is pinned in
 * package.json and test/engine/staggered-workers.test.ts runs a parallel run through it. No worker
 * starts once nothing is left to give (it would only load and end), nor once a stop was requested
 * (interruption.ts): both only leave workers out, so the run's result is decided as before by the
 * workers started.
 */
import { availableParallelism } from 'node:os';
import type { ChildProcess } from 'node:child_process';
import { ChildProcessAdapter } from '@cucumber/cucumber/lib/runtime/parallel/adapter';
import { isStopRequested } from './interruption';

/** What this module uses of cucumber's adapter (its fields are not in its declarations as public). */
interface Adapter {
  todo: unknown[];
  options: { parallel: number };
  workers: Record<string, { process: ChildProcess }>;
  onFinish: (success: boolean) => void;
  idleInterventions: number;
  logger: { warn(message: string): void };
  startWorker(id: string, total: number): void;
}

const cucumberRun = ChildProcessAdapter.prototype.run;
let atOnce = 0;

/**
 * From now on in this process, cucumber starts at most `count` workers at once (0: all at once,
 * cucumber's own way). The number of workers is still cucumber's `parallel`.
 */
export function staggerWorkers(count: number = availableParallelism()): void {
  atOnce = count;
  ChildProcessAdapter.prototype.run = atOnce > 0 ? staggeredRun : cucumberRun;
}

async function staggeredRun(
  this: unknown,
  assembledTestCases: readonly unknown[],
): Promise<boolean> {
  const adapter = this as Adapter;
  adapter.todo = Array.from(assembledTestCases);
  const total = adapter.options.parallel;
  let started = 0;
  const startNext = (): void => {
    if (started >= total || isStopRequested()) return;
    if (started >= atOnce && adapter.todo.length === 0) return;
    const id = String(started++);
    adapter.startWorker(id, total);
    const child = adapter.workers[id]!.process;
    let handedOn = false;
    const handOn = (): void => {
      if (handedOn) return;
      handedOn = true;
      child.off('message', onMessage);
      startNext();
    };
    const onMessage = (message: { type?: string }): void => {
      if (message?.type === 'READY') handOn();
    };
    child.on('message', onMessage);
    // before cucumber's own listener: a worker that ended without READY (its BeforeAll failed)
    // hands on first, so that cucumber does not see every started worker closed and end the run
    // while others were still to start
    child.prependListener('close', handOn);
  };
  return await new Promise<boolean>((resolve) => {
    // as cucumber's own run (adapter.js), with the starts above instead of all at once
    adapter.onFinish = (status: boolean) => {
      if (adapter.idleInterventions > 0)
        adapter.logger.warn(
          `WARNING: All workers went idle ${adapter.idleInterventions} time(s). Consider revising handler passed to setParallelCanAssign.`,
        );
      resolve(status);
    };
    for (let i = 0; i < Math.min(atOnce, total); i++) startNext();
    // a stop requested before the first start leaves no worker whose close would end the run, and
    // nothing else keeps the process alive: it exited 0 with the run unfinished (a SIGINT in the
    // start-up of a remote run, test/integration/staging-safety.test.ts)
    if (started === 0) adapter.onFinish(false);
  });
}
