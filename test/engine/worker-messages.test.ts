/**
 * The messages between the CLI and a worker of a parallel run (src/engine/worker-messages.ts): a
 * stand-in of cucumber's adapter and a real child process in cucumber's worker's place (a script
 * named as cucumber's run_worker.js, the module preloaded as a run's workers preload it), so that
 * what goes over the pipe, and in what order, is seen without running cucumber.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, fork } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { compactWorkerMessages } from '../../src/engine/worker-messages';

const ROOT = join(__dirname, '..', '..');

/** As cucumber's worker: an envelope and READY on INITIALIZE, envelopes and FINISHED on RUN. */
const WORKER = `
process.on('message', (command) => {
  if (command.type === 'INITIALIZE') {
    process.send({ type: 'ENVELOPE', envelope: { hook: 'before all' } });
    process.send({ type: 'READY' });
  } else if (command.type === 'RUN') {
    const { gherkinDocument, pickle } = command.assembledTestCase;
    process.send({ type: 'ENVELOPE', envelope: { started: pickle.id, feature: gherkinDocument.feature.name } });
    setImmediate(() => {
      process.send({ type: 'ENVELOPE', envelope: { finished: pickle.id } });
      process.send({ type: 'FINISHED', success: true });
    });
  } else if (command.type === 'FINALIZE') {
    process.send({ type: 'ENVELOPE', envelope: { hook: 'after all' } });
    process.exit(0);
  }
});
`;

/** Forks the stand-in worker through the patched adapter; what the CLI's cucumber sees and sends. */
function standIn(t: { after(fn: () => void): void }) {
  const folder = mkdtempSync(join(tmpdir(), 'iotc-worker-messages-'));
  mkdirSync(join(folder, 'parallel'));
  const script = join(folder, 'parallel', 'run_worker.js');
  writeFileSync(script, WORKER);
  const seen: Array<Record<string, unknown>> = [];
  const sent: Array<Record<string, unknown>> = [];
  const children: ChildProcess[] = [];
  t.after(() => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(folder, { recursive: true, force: true });
  });
  class Adapter {
    workers: Record<string, { process: ChildProcess }> = {};
    startWorker(id: string): void {
      const child = fork(script, [], {
        cwd: ROOT,
        execArgv: [
          '--require',
          join(ROOT, 'lib', 'ts-register.js'),
          '--require',
          join(ROOT, 'src', 'engine', 'worker-messages.ts'),
        ],
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      children.push(child);
      const send = child.send.bind(child) as (message: unknown) => boolean;
      child.send = ((message: Record<string, unknown>) => {
        sent.push(JSON.parse(JSON.stringify(message)));
        return send(message);
      }) as ChildProcess['send'];
      this.workers[id] = { process: child };
      child.on('message', (message: Record<string, unknown>) =>
        this.parseWorkerMessage(this.workers[id], message),
      );
    }
    parseWorkerMessage(_worker: unknown, message: object): void {
      seen.push(message as Record<string, unknown>);
    }
  }
  compactWorkerMessages(Adapter.prototype);
  const adapter = new Adapter();
  adapter.startWorker('0');
  const child = adapter.workers['0']!.process;
  /** The next message of the given type cucumber sees. */
  const next = (type: string) =>
    new Promise<void>((resolve) => {
      const listener = (message: { type: string }) => {
        if (message.type !== type) return;
        child.off('message', listener);
        // after the adapter's own listener
        setImmediate(resolve);
      };
      child.on('message', listener);
    });
  return { child, seen, sent, next };
}

const document = (uri: string, name: string) => ({ uri, feature: { name, children: [] } });
const run = (uri: string, name: string, id: string) => ({
  type: 'RUN',
  assembledTestCase: { gherkinDocument: document(uri, name), pickle: { id, uri } },
  failing: false,
});

test('a feature document goes to a worker once, the worker gets it back, its messages come in order', async (t) => {
  const { child, seen, sent, next } = standIn(t);
  const ready = next('READY');
  child.send({ type: 'INITIALIZE' });
  await ready;
  for (const [uri, name, id] of [
    ['a.feature', 'A', '1'],
    ['a.feature', 'A', '2'],
    ['b.feature', 'B', '3'],
    ['a.feature', 'A', '4'],
  ]) {
    const finished = next('FINISHED');
    child.send(run(uri!, name!, id!));
    await finished;
  }
  const closed = new Promise((resolve) => child.once('close', resolve));
  child.send({ type: 'FINALIZE' });
  assert.equal(await closed, 0);

  // the same envelopes cucumber's own worker sends, each as cucumber's single message, in order
  assert.deepEqual(seen, [
    { type: 'ENVELOPE', envelope: { hook: 'before all' } },
    { type: 'READY' },
    { type: 'ENVELOPE', envelope: { started: '1', feature: 'A' } },
    { type: 'ENVELOPE', envelope: { finished: '1' } },
    { type: 'FINISHED', success: true },
    { type: 'ENVELOPE', envelope: { started: '2', feature: 'A' } },
    { type: 'ENVELOPE', envelope: { finished: '2' } },
    { type: 'FINISHED', success: true },
    { type: 'ENVELOPE', envelope: { started: '3', feature: 'B' } },
    { type: 'ENVELOPE', envelope: { finished: '3' } },
    { type: 'FINISHED', success: true },
    { type: 'ENVELOPE', envelope: { started: '4', feature: 'A' } },
    { type: 'ENVELOPE', envelope: { finished: '4' } },
    { type: 'FINISHED', success: true },
    // sent just before the worker's exit
    { type: 'ENVELOPE', envelope: { hook: 'after all' } },
  ]);
  // on the pipe: each document whole the first time, by its uri after
  const documents = sent
    .filter((message) => message.type === 'RUN')
    .map(
      (message) =>
        (message.assembledTestCase as { gherkinDocument: Record<string, unknown> }).gherkinDocument,
    );
  assert.deepEqual(documents, [
    document('a.feature', 'A'),
    { iotcDocumentSent: 'a.feature' },
    document('b.feature', 'B'),
    { iotcDocumentSent: 'a.feature' },
  ]);
});

test('a worker that does not batch gets every document whole', () => {
  const sent: unknown[] = [];
  const child = {
    prependListener() {},
    send(message: unknown) {
      sent.push(message);
      return true;
    },
  };
  class Adapter {
    workers: Record<string, { process: unknown }> = {};
    startWorker(id: string): void {
      this.workers[id] = { process: child };
    }
    parseWorkerMessage(): void {}
  }
  compactWorkerMessages(Adapter.prototype as never);
  const adapter = new Adapter();
  adapter.startWorker('0');
  const message = run('a.feature', 'A', '1');
  (adapter.workers['0']!.process as typeof child).send(message);
  (adapter.workers['0']!.process as typeof child).send(message);
  assert.deepEqual(sent, [message, message]);
});
