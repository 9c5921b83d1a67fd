// The payload worker's entry (off-thread.ts): a worker thread starts plain JavaScript, so this registers ts-node as
// bin/iotc.js does, then answers each {id, job} with {id, result} (JSON text) or {id, failure}.
'use strict';
const { join } = require('node:path');
const { parentPort } = require('node:worker_threads');

require('ts-node').register({
  transpileOnly: true,
  project: join(__dirname, '..', '..', '..', 'tsconfig.json'),
});
const { encodeResult, runPayloadJob } = require('./payload-jobs.ts');
const { PlatformError } = require('./errors.ts');

parentPort.on('message', ({ id, job }) => {
  try {
    parentPort.postMessage({ id, result: encodeResult(job, runPayloadJob(job)) });
  } catch (error) {
    const platform = error instanceof PlatformError;
    parentPort.postMessage({
      id,
      failure: {
        message: String(error?.message ?? error),
        status: platform ? error.status : 500,
        errorCode: platform ? error.errorCode : 2,
      },
    });
  }
});
