/**
 * Issue 30 item 1 for the platform's HTTP device API, admin API and server: their handlers ask no fault
 * themselves. Each planted fault is a wrapper of a named step, registered at the route's entry of its route table
 * (simulators/platform/http/route-faults.ts, an AdminRoute's `faults`) or in the table of the shared steps
 * (admin/step-faults.ts, server-steps.ts), and applied by faults/steps.ts. A failure names the file.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT } from '../support/children';

const FOLDERS = ['simulators/platform/http', 'simulators/platform/admin'];
const FILES = ['simulators/platform/index.ts', 'simulators/platform/server-steps.ts'];

test('the device API, admin API and server ask no fault in a handler: faults wrap named steps', () => {
  const files = [
    ...FOLDERS.flatMap((folder) =>
      readdirSync(join(ROOT, folder))
        .filter((name) => name.endsWith('.ts'))
        .map((name) => `${folder}/${name}`),
    ),
    ...FILES,
  ];
  const asking = files.filter((file) =>
    /faultActive\(/.test(readFileSync(join(ROOT, file), 'utf8')),
  );
  assert.deepEqual(asking, [], 'write the fault as a wrapper of a step (faults/steps.ts)');
});
