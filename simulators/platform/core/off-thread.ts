/**
 * Large request bodies are parsed and converted on a worker thread, so one client's 10 MB body does
 * not hold every other client's requests up for the seconds its parse takes (issue 13 finding 2).
 * Small bodies, nearly all of them, stay on the event loop: a round trip to the worker costs more
 * than their parse. One worker, started on the first large body; it holds the process open only
 * while a job is pending. Jobs queue on it in order.
 */
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { activeFaults } from '../../../faults';
import { COMPILED, PACKAGE_ROOT } from '../../../lib/package-root';
import { BadRequestError, PlatformError } from './errors';
import {
  decodeResult,
  runPayloadJob,
  type PayloadJob,
  type PayloadJobResult,
} from './payload-jobs';

/** Bodies from this size on go to the worker. */
const OFF_THREAD_BYTES = 256 * 1024;

interface Pending {
  job: PayloadJob;
  resolve: (result: PayloadJobResult) => void;
  reject: (error: Error) => void;
}

interface Failure {
  message: string;
  status: number;
  errorCode: number;
}

let worker: Worker | undefined;
let nextId = 1;
const pending = new Map<number, Pending>();

function failAll(error: Error): void {
  for (const waiting of pending.values()) waiting.reject(error);
  pending.clear();
  worker = undefined;
}

function payloadWorker(): Worker {
  if (worker) return worker;
  // compiled (dist/), the worker's entry is JavaScript; from the sources, the worker registers
  // lib/ts-register.js first
  const started = COMPILED
    ? new Worker(join(__dirname, 'payload-worker.js'))
    : new Worker(
        `require(${JSON.stringify(join(PACKAGE_ROOT, 'lib', 'ts-register.js'))});
         require(${JSON.stringify(join(__dirname, 'payload-worker.ts'))});`,
        { eval: true },
      );
  started.on('message', (message: { id: number; result?: string; failure?: Failure }) => {
    const waiting = pending.get(message.id);
    if (!waiting) return;
    pending.delete(message.id);
    if (pending.size === 0) started.unref();
    if (message.failure) waiting.reject(rebuild(message.failure));
    else decodeResult(waiting.job, message.result as string).then(waiting.resolve, waiting.reject);
  });
  started.on('error', (error) => failAll(error));
  started.on('exit', () => failAll(new Error('the payload worker stopped')));
  worker = started;
  return started;
}

/** The worker's failure as the class the same failure has on the event loop (a 400 stays a 400). */
function rebuild(failure: Failure): Error {
  if (failure.status === 400) return new BadRequestError(failure.message);
  return new PlatformError(failure.message, failure.status, failure.errorCode);
}

/**
 * The job's result at once when its text is small (a failure thrown here), else the payload
 * worker's, later: the device API's telemetry handler awaits only a large body's job, so a small
 * one's request is answered without a promise and a microtask turn of its own.
 */
export function runPayloadJobHereOrSoon(
  job: PayloadJob,
): PayloadJobResult | Promise<PayloadJobResult> {
  return job.text.length < OFF_THREAD_BYTES ? runPayloadJob(job) : runPayloadJobSoon(job);
}

/** Runs the job here when its text is small, on the payload worker when it is large. */
export function runPayloadJobSoon(job: PayloadJob): Promise<PayloadJobResult> {
  if (job.text.length < OFF_THREAD_BYTES) {
    try {
      return Promise.resolve(runPayloadJob(job));
    } catch (error) {
      return Promise.reject(error);
    }
  }
  const target = payloadWorker();
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { job, resolve, reject });
    target.ref(); // until the answer: an idle worker must not keep a process alive
    target.postMessage({ id, job, faults: activeFaults() });
  });
}
