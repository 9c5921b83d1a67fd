/**
 * The workers of a parallel run started a few at a time (src/engine/staggered-workers.ts): cucumber's
 * adapter with stand-in processes, so that what starts when is seen without forking anything. A
 * real parallel run goes through it in every parallel `iotc run` test.
 */
import assert from 'node:assert/strict';
import type { ChildProcess, ForkOptions } from 'node:child_process';
import { EventEmitter, once } from 'node:events';
import { dirname, join } from 'node:path';
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

test('a worker forked early is the one cucumber forks alike; one forked otherwise is killed', async (t) => {
  // node:child_process itself, whose fork cucumber's adapter calls (a copy of its exports would not see)
  const childProcess = require('node:child_process') as typeof import('node:child_process');
  const runWorker = join(
    dirname(require.resolve('@cucumber/cucumber/lib/runtime/parallel/adapter')),
    'run_worker.js',
  );
  const { fork } = childProcess;
  const forked: ChildProcess[] = [];
  const counting = ((path: string, args: string[], options: ForkOptions) => {
    const child = fork(path, args, options);
    forked.push(child);
    return child;
  }) as typeof fork;
  childProcess.fork = counting;
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
  staggerWorkers(2);
  const env = { ...process.env, IOTC_EARLY_WORKER_TEST: 'early' };
  forkWorkersEarly(3, env, process.cwd());
  assert.equal(forked.length, 2);
  const [early0, early1] = forked;
  // the third is forked when an earlier one is READY, as before
  // cucumber's startWorker (adapter.js): worker 0 as forked early, worker 1 with another environment
  const adapter = {
    todo: [] as unknown[],
    options: { parallel: 3 },
    workers: {} as Record<string, { process: ChildProcess }>,
    idleInterventions: 0,
    logger: { warn() {} },
    onFinish: (_: boolean) => {},
    startWorker(id: string, total: number) {
      const process = childProcess.fork(runWorker, [], {
        cwd: globalThis.process.cwd(),
        env: {
          ...env,
          ...(id === '1' ? { IOTC_EARLY_WORKER_TEST: 'other' } : {}),
          CUCUMBER_PARALLEL: 'true',
          CUCUMBER_TOTAL_WORKERS: total.toString(),
          CUCUMBER_WORKER_ID: id,
        },
        stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
      });
      adapter.workers[id] = { process };
    },
  };
  void (
    ChildProcessAdapter.prototype.run as unknown as (
      this: unknown,
      cases: unknown[],
    ) => Promise<boolean>
  ).call(adapter, [1, 2, 3]);
  assert.equal(adapter.workers['0']!.process, early0);
  assert.equal(forked.length, 3);
  assert.equal(adapter.workers['1']!.process, forked[2]);
  assert.equal(early1!.killed, true);
  assert.equal(adapter.workers['2'], undefined);
  // the fork cucumber calls is the one it was before
  assert.equal(childProcess.fork, counting);
});

test('a worker forked early that has ended is not handed to cucumber, which forks its own', async (t) => {
  const childProcess = require('node:child_process') as typeof import('node:child_process');
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
  staggerWorkers(1);
  const runWorker = join(
    dirname(require.resolve('@cucumber/cucumber/lib/runtime/parallel/adapter')),
    'run_worker.js',
  );
  const options = {
    cwd: process.cwd(),
    env: {
      ...process.env,
      CUCUMBER_PARALLEL: 'true',
      CUCUMBER_TOTAL_WORKERS: '1',
      CUCUMBER_WORKER_ID: '0',
    },
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'] as ForkOptions['stdio'],
  };
  forkWorkersEarly(1, process.env, process.cwd());
  const [early] = forked;
  const exited = once(early!, 'exit');
  early!.kill();
  await exited;
  const adapter = {
    todo: [] as unknown[],
    options: { parallel: 1 },
    workers: {} as Record<string, { process: ChildProcess }>,
    idleInterventions: 0,
    logger: { warn() {} },
    onFinish: (_: boolean) => {},
    startWorker(id: string) {
      adapter.workers[id] = { process: childProcess.fork(runWorker, [], options) };
    },
  };
  void (
    ChildProcessAdapter.prototype.run as unknown as (
      this: unknown,
      cases: unknown[],
    ) => Promise<boolean>
  ).call(adapter, [1]);
  assert.equal(forked.length, 2);
  assert.equal(adapter.workers['0']!.process, forked[1]);
});
