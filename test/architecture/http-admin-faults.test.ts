/**
 * Issue 30 item 1 for the platform's HTTP device API, admin API and server: their handlers ask no
 * fault themselves. Each planted fault is a wrapper of a named step, registered at the route's
 * entry of its route table (simulators/platform/http/route-faults.ts, an AdminRoute's `faults`) or
 * in the table of the shared steps (admin/auth-faults.ts, server-steps.ts), and applied by
 * faults/steps.ts. And (item 3) the device API's routes are written once, in
 * schemas/device-http.ts, read by the reference and the HTTP device driver.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { DEVICE_HTTP_API } from '../../schemas';
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

test('every route of the HTTP device API table (schemas/device-http.ts) is served by the reference and called by the driver', () => {
  const reference = readFileSync(join(ROOT, 'simulators/platform/http/index.ts'), 'utf8');
  const driver = readFileSync(join(ROOT, 'simulators/device/http-device.ts'), 'utf8');
  for (const role of Object.keys(DEVICE_HTTP_API)) {
    assert.ok(reference.includes(`route('${role}'`), `the reference serves no route ${role}`);
    assert.ok(new RegExp(`\\(\\s*'${role}'`).test(driver), `the driver calls no route ${role}`);
  }
  assert.doesNotMatch(reference, /['"`]\/api\/v1\//, 'a path written beside the table');
});
