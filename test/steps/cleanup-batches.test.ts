/** Which cleanups of a scenario run at once (steps/support/cleanup-batches.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cleanupBatches } from '../../steps/support/cleanup-batches';

const named = (what: string, entity?: string) => ({ what, ...(entity ? { entity } : {}) });
const connection = (what: string) => ({ what, connection: true });

test('consecutive device deletions go together; every other undo keeps its place alone', () => {
  const lastFirst = [
    named('device sub-2', 'device:sub-2'),
    named('device sub-1', 'device:sub-1'),
    named('the JWT settings'),
    named('device gw', 'device:gw'),
    named('deviceProfile p', 'deviceProfile:p'),
    named('device d', 'device:d'),
    named('system administrator session'),
  ];
  assert.deepEqual(
    cleanupBatches(lastFirst).batches.map((batch) => batch.map(({ what }) => what)),
    [
      ['device sub-2', 'device sub-1'],
      ['the JWT settings'],
      ['device gw'],
      ['deviceProfile p'],
      ['device d'],
      ['system administrator session'],
    ],
  );
});

test("the harness's connections close together, apart from the batches; the deletions they separated go together", () => {
  const lastFirst = [
    named('device sub-2', 'device:sub-2'),
    named('device sub-1', 'device:sub-1'),
    connection('MQTT connection of gw'),
    named('device gw', 'device:gw'),
    connection('MQTT connection of d'),
    named('device d', 'device:d'),
    named('the JWT settings'),
  ];
  const { connections, batches } = cleanupBatches(lastFirst);
  assert.deepEqual(
    connections.map(({ what }) => what),
    ['MQTT connection of gw', 'MQTT connection of d'],
  );
  assert.deepEqual(
    batches.map((batch) => batch.map(({ what }) => what)),
    [['device sub-2', 'device sub-1', 'device gw', 'device d'], ['the JWT settings']],
  );
});

test('a batch holds at most eight deletions, in their order', () => {
  const devices = Array.from({ length: 19 }, (_, i) => named(`device d${i}`, `device:d${i}`));
  const { connections, batches } = cleanupBatches(devices);
  assert.deepEqual(connections, []);
  assert.deepEqual(
    batches.map((batch) => batch.length),
    [8, 8, 3],
  );
  assert.deepEqual(batches.flat(), devices);
});
