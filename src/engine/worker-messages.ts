/**
 * Fewer and smaller messages between the CLI and the workers of a parallel run (issue 29 item 2,
 * bench/README.md "The coordinator's messages").
 *
 * Cucumber's workers talk to the CLI over node's JSON IPC, one message a thing:
 * - every RUN the CLI sends carries the whole gherkin document of the scenario's feature: 10.7 MB
 *   of JSON for the 366 scenarios of the embedded run (the 42 documents are 0.7 MB), serialised by
 *   the CLI and parsed by a worker again for each scenario of a feature;
 * - a worker sends each of its cucumber messages alone (some 2,000 a worker: every step's start
 *   and end), each a write to the pipe and a read on the other side.
 * Here a worker is sent a feature's document once; later RUNs name it by its uri (`DOCUMENT_SENT`)
 * and the worker puts back the document it kept, the same object for a feature's scenarios as
 * cucumber's own serial run passes. A worker gathers its messages during one turn of its event loop
 * and sends them as one batch (`ENVELOPES`), always before any other message of its own (READY,
 * FINISHED), so the CLI sees them in the same order; a worker that exits sends what it gathered on
 * its way out, as cucumber's own messages went just before its exit.
 *
 * Both sides are here: the CLI's (`compactWorkerMessages`, cucumber's adapter patched as
 * staggered-workers.ts patches it; the version is pinned in package.json) and the worker's,
 * preloaded into cucumber's worker processes (worker-environment.ts) and installed only in one (its
 * main module is cucumber's run_worker.js). A worker says it batches by sending a batch, possibly
 * empty, before its READY; the CLI leaves the documents whole for a worker that did not.
 */
import type { ChildProcess } from 'node:child_process';
import { sep } from 'node:path';
import type * as messages from '@cucumber/messages';
import { ChildProcessAdapter } from '@cucumber/cucumber/lib/runtime/parallel/adapter';

/** In a FINISHED, the test case's id (a worker may run several at once: staggered-workers.ts). */
export const FINISHED_ID = 'iotcTestCaseId';

/** A worker's batch of cucumber messages. */
const ENVELOPES = 'IOTC_ENVELOPES';
/** In a RUN, the gherkin document this worker was sent before, by its uri. */
const DOCUMENT_SENT = 'iotcDocumentSent';

interface RunCommand {
  type: 'RUN';
  assembledTestCase: {
    gherkinDocument: messages.GherkinDocument | { [DOCUMENT_SENT]: string };
  };
}

interface WorkerMessage {
  type: string;
  envelope?: messages.Envelope;
  envelopes?: messages.Envelope[];
}

/** What this module uses of cucumber's adapter (src/engine/staggered-workers.ts has the rest). */
interface Adapter {
  workers: Record<string, { process: ChildProcess }>;
  startWorker(id: string, total: number): void;
  parseWorkerMessage(worker: unknown, message: WorkerMessage): void;
}

/**
 * From now on in this process, cucumber's workers are sent each feature's document once and their
 * batches are taken apart into cucumber's single messages.
 */
export function compactWorkerMessages(
  prototype: Adapter = ChildProcessAdapter.prototype as unknown as Adapter,
): void {
  if ((prototype as { [DOCUMENT_SENT]?: true })[DOCUMENT_SENT]) return;
  (prototype as { [DOCUMENT_SENT]?: true })[DOCUMENT_SENT] = true;
  const { startWorker, parseWorkerMessage } = prototype;
  prototype.parseWorkerMessage = function parse(this: Adapter, worker, message) {
    if (message?.type !== ENVELOPES) return parseWorkerMessage.call(this, worker, message);
    for (const envelope of message.envelopes ?? [])
      parseWorkerMessage.call(this, worker, { type: 'ENVELOPE', envelope });
  };
  prototype.startWorker = function start(this: Adapter, id, total) {
    startWorker.call(this, id, total);
    const child = this.workers[id]!.process;
    let batches = false;
    const sent = new Set<string>();
    child.prependListener('message', (message: WorkerMessage) => {
      if (message?.type === ENVELOPES) batches = true;
    });
    const send = child.send.bind(child) as (message: unknown, ...rest: unknown[]) => boolean;
    child.send = ((message: RunCommand, ...rest: unknown[]) => {
      if (!batches || message?.type !== 'RUN') return send(message, ...rest);
      const { uri } = message.assembledTestCase.gherkinDocument as messages.GherkinDocument;
      if (uri === undefined || !sent.has(uri)) {
        if (uri !== undefined) sent.add(uri);
        return send(message, ...rest);
      }
      // the item stays cucumber's (it keeps it while the scenario runs): a copy goes out
      return send(
        {
          ...message,
          assembledTestCase: {
            ...message.assembledTestCase,
            gherkinDocument: { [DOCUMENT_SENT]: uri },
          },
        },
        ...rest,
      );
    }) as ChildProcess['send'];
  };
}

/** What the worker's side uses of cucumber's ChildProcessWorker (worker.js). */
interface NamedWorker {
  worker: { runTestCase(testCase: unknown, failing: boolean): Promise<boolean> };
  sendMessage(message: unknown): void;
  runTestCase(command: {
    assembledTestCase: { testCase: { id: string } };
    failing: boolean;
  }): Promise<void>;
}

/** In a worker: its messages batched, the documents put back. */
function batchWorkerMessages(): void {
  const sendOne = process.send!.bind(process) as (message: unknown, ...rest: unknown[]) => boolean;
  let gathered: messages.Envelope[] = [];
  let scheduled = false;
  const flush = (): void => {
    scheduled = false;
    const envelopes = gathered;
    gathered = [];
    sendOne({ type: ENVELOPES, envelopes });
  };
  process.send = ((message: WorkerMessage, ...rest: unknown[]) => {
    if (message?.type === 'ENVELOPE' && message.envelope) {
      gathered.push(message.envelope);
      if (!scheduled) {
        scheduled = true;
        setImmediate(() => {
          if (scheduled) flush();
        });
      }
      return true;
    }
    // the batch first, an empty one before READY (the CLI learns that this worker batches)
    if (gathered.length > 0 || message?.type === 'READY') flush();
    return sendOne(message, ...rest);
  }) as typeof process.send;
  process.once('exit', () => {
    if (gathered.length > 0) flush();
  });
  // FINISHED names its test case: the scenarios a worker runs at once end in any order
  // (staggered-workers.ts severalAtOnce); cucumber's own runTestCase (worker.js) otherwise
  const { ChildProcessWorker } = require('@cucumber/cucumber/lib/runtime/parallel/worker') as {
    ChildProcessWorker: { prototype: NamedWorker };
  };
  ChildProcessWorker.prototype.runTestCase = async function runTestCase(command) {
    const success = await this.worker.runTestCase(command.assembledTestCase, command.failing);
    this.sendMessage({
      type: 'FINISHED',
      success,
      [FINISHED_ID]: command.assembledTestCase.testCase.id,
    });
  };
  const documents = new Map<string, messages.GherkinDocument>();
  // before cucumber's own listener (run_worker.js): it reads the same object
  process.prependListener('message', (message: unknown) => {
    const command = message as RunCommand | undefined;
    if (command?.type !== 'RUN') return;
    const testCase = command.assembledTestCase;
    const { gherkinDocument } = testCase;
    if (DOCUMENT_SENT in gherkinDocument) {
      const kept = documents.get(gherkinDocument[DOCUMENT_SENT]);
      if (!kept) throw new Error(`no gherkin document kept for ${gherkinDocument[DOCUMENT_SENT]}`);
      testCase.gherkinDocument = kept;
    } else if (gherkinDocument.uri !== undefined)
      documents.set(gherkinDocument.uri, gherkinDocument);
  });
}

const CUCUMBER_WORKER = `${sep}parallel${sep}run_worker.js`;
if (typeof process.send === 'function' && process.argv[1]?.endsWith(CUCUMBER_WORKER))
  batchWorkerMessages();
