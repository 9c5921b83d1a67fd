/**
 * The reference analytics service asks no fault in its handlers: each of its planted faults is an
 * entry of a step table (`<NAME>_FAULTS`, applied by faults/steps.ts `withFaults`) beside the steps
 * it wraps.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

const DIR = join(__dirname, '..', '..', 'simulators', 'analytics');

test('simulators/analytics calls no faultActive: its faults wrap named steps', () => {
  const switching = readdirSync(DIR)
    .filter((name) => name.endsWith('.ts'))
    .filter((name) => /faultActive\(/.test(readFileSync(join(DIR, name), 'utf8')));
  assert.deepEqual(switching, []);
});
