/**
 * The workers of a parallel run started a few at a time (src/engine/staggered-workers.ts): cucumber's
 * adapter with stand-in processes, so that what starts when is seen without forking anything. A
 * real parallel run goes through it in every parallel `iotc run` test.
 */
import assert from 'node:assert/strict';
import type { ChildProcess, ForkOptions } from 'node:child_process';
import { EventEmitter, once } from 'node:events';
import { test } from 'node:test';
import { ChildProcessAdapter } from '@cucumber/cucumber/lib/runtime/parallel/adapter';
import { requestStop, resetInterruption } from '../../src/engine/interruption';
import {
  discardEarlyWorkers,
  forkWorkersEarly,
  staggerWorkers,
} from '../../src/engine/staggered-workers';

/** An adapter whose startWorker records the start and listens as cucumber's does. */
function standIn(parallel: number, todo: number) {
  const started: string[] = [];
  const adapter = {
    todo: [] as unknown[],
    options: { parallel },
    workers: {} as Record<string, { process: EventEmitter; closed: boolean }>,
    idleInterventions: 0,
    logger: { warn() {} },
    onFinish: (_: boolean) => {},
    startWorker(id: string) {
      started.push(id);
      const worker = { process: new EventEmitter(), closed: false };
      adapter.workers[id] = worker;
      // as cucumber's: a READY worker takes a test case; once every started worker closed, the end
      worker.process.on('message', (message: { type: string }) => {
        if (message.type === 'READY') adapter.todo.shift();
      });
      worker.process.on('close', () => {
        worker.closed = true;
        if (Object.values(adapter.workers).every((w) => w.closed)) adapter.onFinish(true);
      });
    },
  };
  const run = (
    ChildProcessAdapter.prototype.run as unknown as (
      this: unknown,
      cases: unknown[],
    ) => Promise<boolean>
  ).call(
    adapter,
    Array.from({ length: todo }, (_, i) => i),
  );
  const ready = (id: string) => adapter.workers[id]!.process.emit('message', { type: 'READY' });
  /** Every started worker ends; the run's result. */
  const ended = async () => {
    for (const worker of Object.values(adapter.workers)) worker.process.emit('close', 0);
    return await run;
  };
  return { adapter, started, run, ready, ended };
}

test('two at once, each later one on an earlier one READY', async (t) => {
  staggerWorkers(2);
  t.after(() => staggerWorkers(0));
  const { adapter, started, ready, ended } = standIn(5, 100);
  assert.deepEqual(started, ['0', '1']);
  ready('1');
  assert.deepEqual(started, ['0', '1', '2']);
  // an envelope is no READY; a second READY of the same worker starts no other
  adapter.workers['1']!.process.emit('message', { type: 'ENVELOPE' });
  ready('1');
  assert.deepEqual(started, ['0', '1', '2']);
  ready('0');
  ready('2');
  assert.deepEqual(started, ['0', '1', '2', '3', '4']);
  assert.equal(await ended(), true);
});

test('a worker that ends without READY hands on before cucumber sees every worker closed', async (t) => {
  staggerWorkers(2);
  t.after(() => staggerWorkers(0));
  const { adapter, started, run } = standIn(3, 100);
  let finished = false;
  void run.then(() => {
    finished = true;
  });
  adapter.workers['0']!.process.emit('close', 1);
  adapter.workers['1']!.process.emit('close', 1);
  // the third started before the second's close reached cucumber: the run goes on
  assert.deepEqual(started, ['0', '1', '2']);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(finished, false);
  adapter.workers['2']!.process.emit('close', 0);
  assert.equal(await run, true);
});

test('none starts once nothing is left to give', async (t) => {
  staggerWorkers(2);
  t.after(() => staggerWorkers(0));
  const { started, ready, ended } = standIn(5, 1);
  ready('0');
  ready('1');
  assert.deepEqual(started, ['0', '1']);
  assert.equal(await ended(), true);
});

test('0: cucumber starts them all at once', async (t) => {
  staggerWorkers(0);
  t.after(() => staggerWorkers(0));
  const { started, ended } = standIn(4, 100);
  assert.deepEqual(started, ['0', '1', '2', '3']);
  assert.equal(await ended(), true);
});

test('a stop requested before the first start ends the run unsuccessful, starting none', async (t) => {
  staggerWorkers(2);
  requestStop();
  t.after(() => {
    staggerWorkers(0);
    resetInterruption();
  });
  const { started, run } = standIn(3, 100);
  assert.deepEqual(started, []);
  assert.equal(await run, false);
});

/** node:child_process itself, whose fork cucumber's adapter calls (a copy of its exports would not see). */
const childProcess = require('node:child_process') as typeof import('node:child_process');

/**
 * Every fork of this test recorded (cucumber's, as the early ones), and at its end undone: the
 * children killed and awaited, the workers' starts as they were.
 */
function recordedForks(t: { after(fn: () => Promise<void>): void }) {
  const { fork } = childProcess;
  const forked: ChildProcess[] = [];
  childProcess.fork = ((path: string, args: string[], options: ForkOptions) => {
    const child = fork(path, args, options);
    forked.push(child);
    return child;
  }) as typeof fork;
  t.after(async () => {
    childProcess.fork = fork;
    staggerWorkers(0);
    discardEarlyWorkers();
    await Promise.all(
      forked.map(async (child) => {
        if (child.exitCode === null && child.signalCode === null) {
          const exited = once(child, 'exit');
          child.kill();
          await exited;
        }
      }),
    );
  });
  return forked;
}

/**
 * Cucumber's own adapter running no test case in `parallel` real workers with no support code:
 * each worker is INITIALIZEd, READY, FINALIZEd and ends. Resolves with the run's success and the
 * processes cucumber started.
 */
async function emptyParallelRun(parallel: number, env: NodeJS.ProcessEnv) {
  const Adapter = ChildProcessAdapter as unknown as new (
    ...args: unknown[]
  ) => {
    run(cases: unknown[]): Promise<boolean>;
    workers: Record<string, { process: ChildProcess }>;
  };
  const adapter = new Adapter(
    'test-run',
    { cwd: process.cwd(), env },
    { warn() {} },
    new EventEmitter(),
    { parallel },
    {},
    {
      originalCoordinates: { requireModules: [], requirePaths: [], importPaths: [], loaders: [] },
      stepDefinitions: [],
      beforeTestCaseHookDefinitions: [],
      afterTestCaseHookDefinitions: [],
      beforeTestRunHookDefinitions: [],
      afterTestRunHookDefinitions: [],
    },
  );
  const success = await adapter.run([]);
  return { success, processes: Object.values(adapter.workers).map((worker) => worker.process) };
}

test('the workers forked early are the ones cucumber runs when it forks them alike', async (t) => {
  const forked = recordedForks(t);
  // three at once: two forked early, the third (beside this process) when cucumber asks
  staggerWorkers(3);
  const env = { ...process.env, IOTC_EARLY_WORKER_TEST: 'early' };
  forkWorkersEarly(3, env, process.cwd());
  assert.equal(forked.length, 2);
  const { success, processes } = await emptyParallelRun(3, env);
  assert.equal(success, true);
  assert.equal(forked.length, 3);
  assert.deepEqual(processes, forked);
  assert.deepEqual(
    forked.map((child) => child.exitCode),
    [0, 0, 0],
  );
});

test('workers forked early with other arguments are killed, and cucumber forks its own', async (t) => {
  const forked = recordedForks(t);
  staggerWorkers(3);
  forkWorkersEarly(3, { ...process.env, IOTC_EARLY_WORKER_TEST: 'early' }, process.cwd());
  const early = [...forked];
  const { success, processes } = await emptyParallelRun(3, {
    ...process.env,
    IOTC_EARLY_WORKER_TEST: 'other',
  });
  assert.equal(success, true);
  assert.equal(forked.length, 5);
  assert.deepEqual(processes, forked.slice(2));
  assert.deepEqual(
    early.map((child) => child.killed),
    [true, true],
  );
});

test('a worker forked early that has ended is not handed to cucumber, which forks its own', async (t) => {
  const forked = recordedForks(t);
  staggerWorkers(2);
  forkWorkersEarly(2, process.env, process.cwd());
  assert.equal(forked.length, 1);
  const [early] = forked;
  const exited = once(early!, 'exit');
  early!.kill();
  await exited;
  const { success, processes } = await emptyParallelRun(2, process.env);
  assert.equal(success, true);
  assert.equal(forked.length, 3);
  assert.deepEqual(processes, forked.slice(1));
});
