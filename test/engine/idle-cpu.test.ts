/**
 * What other processes use of the cores (src/engine/idle-cpu.ts, the choice of an embedded run's
 * workers): this process's own CPU is not counted as theirs, and the figure stays within the cores.
 */
import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { test } from 'node:test';
import { othersBusyCores } from '../../src/engine/idle-cpu';

test('a figure within the cores, over the span since the module was loaded', () => {
  // 300 ms of this process's own work: the span is long enough for the cores' times
  const until = performance.now() + 300;
  while (performance.now() < until);
  const { cores, how } = othersBusyCores();
  assert.ok(cores >= 0 && cores <= availableParallelism(), `${cores} cores`);
  // measured over the span, not the load average's stand-in
  assert.match(how, /^others used \d+\.\d of \d+ cores over \d+ ms$/);
});
