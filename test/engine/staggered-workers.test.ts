/**
 * The workers of a parallel run started a few at a time (src/engine/staggered-workers.ts): cucumber's
 * adapter with stand-in processes, so that what starts when is seen without forking anything. A
 * real parallel run goes through it in every parallel `iotc run` test.
 */
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { test } from 'node:test';
import { ChildProcessAdapter } from '@cucumber/cucumber/lib/runtime/parallel/adapter';
import { requestStop, resetInterruption } from '../../src/engine/interruption';
import { scenariosPerWorker, staggerWorkers } from '../../src/engine/staggered-workers';

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

/**
 * A worker of two slots given free1, free2, `waiting` (which needs the worker empty), free3: the
 * first two at once, then `waiting` alone, overtaken by none, then free3.
 */
async function holdsBack(waiting: { folder: string; tags: string[] }): Promise<void> {
  staggerWorkers(2, 2);
  const scenario = (id: string, folder: string, tags: string[] = []) => ({
    pickle: {
      id,
      uri: `features/${folder}/a.feature`,
      tags: tags.map((name) => ({ name })),
      steps: [],
    },
    testCase: { id },
  });
  const sent: Array<[string, string]> = [];
  const adapter = {
    todo: [] as unknown[],
    inProgress: {},
    failing: false,
    options: { parallel: 1 },
    workers: {} as Record<string, { id: string; state: number; process: EventEmitter }>,
    idleInterventions: 0,
    logger: { warn() {} },
    supportCodeLibrary: { parallelCanAssign: () => true },
    onFinish: (_: boolean) => {},
    parseWorkerMessage(_worker: unknown, _message: unknown) {},
    startWorker(id: string) {
      const process = Object.assign(new EventEmitter(), {
        send(message: { type: string; assembledTestCase?: { testCase: { id: string } } }) {
          sent.push([message.type, message.assembledTestCase?.testCase.id ?? '']);
        },
      });
      const worker = { id, state: 3, process };
      adapter.workers[id] = worker;
      process.on('message', (message) => adapter.parseWorkerMessage(worker, message));
      process.on('close', () => adapter.onFinish(true));
    },
  };
  const run = (
    ChildProcessAdapter.prototype.run as unknown as (
      this: unknown,
      cases: unknown[],
    ) => Promise<boolean>
  ).call(adapter, [
    scenario('free1', 'admin-auth'),
    scenario('free2', 'http-device-api'),
    scenario('alone', waiting.folder, waiting.tags),
    scenario('free3', 'mqtt-device-api'),
  ]);
  const worker = adapter.workers['0']!.process;
  worker.emit('message', { type: 'READY' });
  // two at once; the `alone` one waits for a worker with none running, and none overtakes it
  assert.deepEqual(sent, [
    ['RUN', 'free1'],
    ['RUN', 'free2'],
  ]);
  worker.emit('message', { type: 'FINISHED', success: true, iotcTestCaseId: 'free2' });
  assert.equal(sent.length, 2);
  worker.emit('message', { type: 'FINISHED', success: true, iotcTestCaseId: 'free1' });
  assert.deepEqual(sent.slice(2), [['RUN', 'alone']]);
  worker.emit('message', { type: 'FINISHED', success: true, iotcTestCaseId: 'alone' });
  assert.deepEqual(sent.slice(3), [['RUN', 'free3']]);
  worker.emit('message', { type: 'FINISHED', success: true, iotcTestCaseId: 'free3' });
  assert.deepEqual(sent.slice(4), [['FINALIZE', '']]);
  worker.emit('close', 0);
  assert.equal(await run, true);
}

test('a worker holds several scenarios at once, none beside an `alone` one, and none overtakes it', async (t) => {
  t.after(() => staggerWorkers(0));
  await holdsBack({ folder: 'analytics-unsorted', tags: [] });
  await holdsBack({ folder: 'robustness', tags: ['@robustness', '@ROB-POLL-01'] });
});

test("none overtakes the device limit's scenario, which only a token-lifetimes one may join", async (t) => {
  t.after(() => staggerWorkers(0));
  await holdsBack({ folder: 'mqtt-gateway-api', tags: ['@capability-tenant-limits'] });
});

test('IOTC_SCENARIOS_PER_WORKER sets the scenarios at once; three on an embedded target, one on a remote one otherwise', (t) => {
  const before = process.env.IOTC_SCENARIOS_PER_WORKER;
  t.after(() => {
    if (before === undefined) delete process.env.IOTC_SCENARIOS_PER_WORKER;
    else process.env.IOTC_SCENARIOS_PER_WORKER = before;
  });
  delete process.env.IOTC_SCENARIOS_PER_WORKER;
  assert.equal(scenariosPerWorker(true), 3);
  assert.equal(scenariosPerWorker(false), 1);
  process.env.IOTC_SCENARIOS_PER_WORKER = '2';
  assert.equal(scenariosPerWorker(false), 2);
  process.env.IOTC_SCENARIOS_PER_WORKER = '0';
  assert.throws(() => scenariosPerWorker(true), /whole number of 1 or more, not 0/);
});
