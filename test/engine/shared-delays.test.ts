/**
 * The shared-delays folder of a run (src/engine/shared-delays.ts): a run killed with SIGKILL leaves
 * its folder, and the next run removes it, never the folder of a run still alive.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sharedDelaysFolder, sweepDeadRunsFolders } from '../../src/engine/shared-delays';

test("a new run removes the folders of runs that are gone and keeps the living runs' folders", () => {
  const parent = mkdtempSync(join(tmpdir(), 'iotc-shared-delays-test-'));
  // a pid that was alive and is not any more: a child that has exited
  const gone = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], {
    encoding: 'utf8',
  }).stdout.trim();
  mkdirSync(join(parent, `iotc-delays-${gone}-abcdef`));
  mkdirSync(join(parent, `iotc-delays-${process.pid}-ghijkl`));
  mkdirSync(join(parent, 'iotc-delays-unrelated'));
  const mine = sharedDelaysFolder(parent);
  assert.deepEqual(
    readdirSync(parent).sort(),
    [
      `iotc-delays-${process.pid}-ghijkl`,
      mine.slice(parent.length + 1),
      'iotc-delays-unrelated',
    ].sort(),
  );
  assert.match(mine, new RegExp(`iotc-delays-${process.pid}-`));
  sweepDeadRunsFolders(join(parent, 'no-such-folder'));
  assert.ok(existsSync(mine));
});
