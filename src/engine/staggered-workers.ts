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
import type { Pickle } from '@cucumber/messages';
import { isStopRequested } from './interruption';
import { FINISHED_ID } from './worker-messages';
import { canRunBeside, type Sharing, sharingOf } from './exclusive';

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
let slotsPerWorker = 1;

/**
 * How many scenarios a worker runs at once: IOTC_SCENARIOS_PER_WORKER when set, else three on an
 * embedded target and one (cucumber's way) on a remote one. A worker's scenarios share its one
 * reference as a remote run's workers share a tenant (exclusive.ts keeps apart those that would
 * disturb each other): the embedded run is bound by its scenarios' waits, not their CPU, and
 * three workers of three took 11.0 s and 15.6 CPU-s where five of one took 14.8 s and 20.4
 * (medians, bench/README.md "Several scenarios at once in each embedded worker"). A remote
 * target's workers already grow with its round trip (run.ts workerCount), and several at once per
 * worker against the real platform were not measured.
 */
export function scenariosPerWorker(embedded: boolean): number {
  const set = process.env.IOTC_SCENARIOS_PER_WORKER;
  if (set === undefined || set === '') return embedded ? 3 : 1;
  const count = Number(set);
  if (!Number.isInteger(count) || count < 1)
    throw new Error(`IOTC_SCENARIOS_PER_WORKER must be a whole number of 1 or more, not ${set}`);
  return count;
}

/**
 * From now on in this process, cucumber starts at most `count` workers at once (0: all at once,
 * cucumber's own way), each running up to `slots` scenarios at once. The number of workers is
 * still cucumber's `parallel`.
 */
export function staggerWorkers(count: number = availableParallelism(), slots = 1): void {
  atOnce = count;
  slotsPerWorker = slots;
  ChildProcessAdapter.prototype.run = atOnce > 0 ? staggeredRun : cucumberRun;
}

async function staggeredRun(
  this: unknown,
  assembledTestCases: readonly unknown[],
): Promise<boolean> {
  const adapter = this as Adapter;
  adapter.todo = Array.from(assembledTestCases);
  if (slotsPerWorker > 1) severalAtOnce(this as SlotAdapter, slotsPerWorker);
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

/** The kinds (exclusive.ts) that need a worker (nearly) empty, and so are not overtaken. */
const NOT_OVERTAKEN: ReadonlySet<Sharing> = new Set(['alone', 'tenant-limits']);

/** What severalAtOnce uses of cucumber's adapter and its workers (adapter.js). */
interface SlotWorker {
  id: string;
  /** cucumber's WorkerState: 0 idle, 1 closed, 2 running, 3 new */
  state: number;
  process: ChildProcess;
}
interface TestCaseItem {
  pickle: Pickle;
  testCase: { id: string };
}
interface SlotAdapter {
  todo: TestCaseItem[];
  inProgress: Record<string, TestCaseItem>;
  workers: Record<string, SlotWorker>;
  failing: boolean;
  idleInterventions: number;
  supportCodeLibrary: {
    parallelCanAssign(pickle: Pickle, running: readonly Pickle[]): boolean;
  };
  parseWorkerMessage(worker: SlotWorker, message: WorkerMessage): void;
}
interface WorkerMessage {
  type?: string;
  success?: boolean;
  [FINISHED_ID]?: string;
}

/**
 * A worker holds up to `slots` scenarios at once: cucumber's adapter gives a worker one test case
 * at a time (idle/running) and the worker runs each RUN as it comes (worker.js receiveMessage), so
 * only the coordinator's side changes. A worker's scenarios share its one reference (or a remote
 * target's tenant) as a remote run's workers share a tenant: a scenario joins a worker only if it
 * may run beside each of that worker's (exclusive.ts canRunBeside), and beside every scenario of
 * the run by the run's own rule (setParallelCanAssign, remote targets); none overtakes one that
 * runs alone. The worker names the test case in its FINISHED (worker-messages.ts), as two may end
 * in any order.
 */
function severalAtOnce(adapter: SlotAdapter, slots: number): void {
  const parse = Object.getPrototypeOf(adapter)
    .parseWorkerMessage as SlotAdapter['parseWorkerMessage'];
  const running = new Map<string, Map<string, TestCaseItem>>();
  const runningIn = (worker: SlotWorker): Map<string, TestCaseItem> => {
    let held = running.get(worker.id);
    if (!held) running.set(worker.id, (held = new Map()));
    return held;
  };
  const give = (worker: SlotWorker, index: number): void => {
    const [item] = adapter.todo.splice(index, 1) as [TestCaseItem];
    runningIn(worker).set(item.testCase.id, item);
    adapter.inProgress[`${worker.id}:${item.testCase.id}`] = item;
    worker.process.send({ type: 'RUN', assembledTestCase: item, failing: adapter.failing });
  };
  const fill = (worker: SlotWorker): void => {
    const held = runningIn(worker);
    while (held.size < slots && adapter.todo.length > 0) {
      const mine = [...held.values()].map(({ pickle }) => pickle);
      const all = Object.values(adapter.inProgress).map(({ pickle }) => pickle);
      const index = adapter.todo.findIndex(
        ({ pickle }) =>
          canRunBeside(pickle, mine) && adapter.supportCodeLibrary.parallelCanAssign(pickle, all),
      );
      // a scenario that runs alone is not overtaken: it needs a worker with none running, which,
      // with every worker refilled as each scenario ends, came only once all others were taken
      // (the run's order puts those first, run.ts), and they then ended the run one at a time.
      // The same for the device limit's, which only a token-lifetimes scenario may join: with the
      // robustness scenarios no longer alone they were overtaken to the end of every run at load
      // 4-9 and ended it (bench/README.md "The robustness scenarios sorted")
      if (index < 0 || (index > 0 && NOT_OVERTAKEN.has(sharingOf(adapter.todo[0]!.pickle)))) break;
      give(worker, index);
    }
    if (held.size === 0 && adapter.todo.length === 0) {
      worker.state = 2;
      worker.process.send({ type: 'FINALIZE' });
    } else worker.state = held.size < slots ? 0 : 2; // 0: it takes more when one is placeable
  };
  const awaken = (triggering: SlotWorker): void => {
    for (const worker of Object.values(adapter.workers)) if (worker.state === 0) fill(worker);
    // as cucumber's awakenWorkers: nothing running anywhere and nothing placeable, the first goes
    if (Object.keys(adapter.inProgress).length === 0 && adapter.todo.length > 0) {
      give(triggering, 0);
      adapter.idleInterventions++;
    }
  };
  adapter.parseWorkerMessage = (worker, message) => {
    if (message?.type === 'READY') {
      worker.state = 0;
      awaken(worker);
    } else if (message?.type === 'FINISHED') {
      if (!message.success) adapter.failing = true;
      const held = runningIn(worker);
      const id = message[FINISHED_ID] ?? (held.size === 1 ? [...held.keys()][0] : undefined);
      if (id === undefined || !held.has(id))
        throw new Error(`worker ${worker.id} finished a test case it was not running (${id})`);
      held.delete(id);
      delete adapter.inProgress[`${worker.id}:${id}`];
      worker.state = 0;
      awaken(worker);
    } else parse.call(adapter, worker, message);
  };
}
