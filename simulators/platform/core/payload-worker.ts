/**
 * The payload worker's entry (off-thread.ts): answers each {id, job, faults} with {id, result}
 * (JSON text) or {id, failure}. The planted faults on in the main thread are turned on here too, so
 * a large body meets the same reference as a small one.
 */
import { parentPort } from 'node:worker_threads';
import { setActiveFaults } from '../../../faults';
import { PlatformError } from './errors';
import { encodeResult, runPayloadJob, type PayloadJob } from './payload-jobs';

parentPort?.on(
  'message',
  ({ id, job, faults }: { id: number; job: PayloadJob; faults: string[] }) => {
    try {
      setActiveFaults(faults);
      parentPort?.postMessage({ id, result: encodeResult(job, runPayloadJob(job)) });
    } catch (error) {
      const platform = error instanceof PlatformError;
      parentPort?.postMessage({
        id,
        failure: {
          message: String((error as Error)?.message ?? error),
          status: platform ? error.status : 500,
          errorCode: platform ? error.errorCode : 2,
        },
      });
    }
  },
);
