/**
 * StallLog.stalledBetween: the time the event loop stood still within a window, summed over its
 * stalls (the measure ROB-POLL-01 weighs a late serving against), counts a stall inside the window
 * and none outside it; worstBetween counts a stall still going on only for a window that reaches
 * into it (issue 28: the CLI-BEH verdicts, judged after the session, were INCONCLUSIVE by the
 * judging's own time slice).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { StallLog } from '../../steps/support/timing';

function block(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

test('stalledBetween sums the stalls inside its window and ignores those before it', async () => {
  const log = new StallLog();
  try {
    await delay(30);
    block(150);
    await delay(30);
    const afterFirst = Date.now();
    await delay(30);
    block(120);
    await delay(30);
    const all = log.stalledBetween(afterFirst - 400);
    const second = log.stalledBetween(afterFirst);
    // each block delays the 10 ms timer by about its length; a loaded machine can only add to that
    assert.ok(all >= 250, `both stalls: ${all} ms`);
    assert.ok(second >= 100, `the second stall: ${second} ms`);
    assert.ok(
      second < all - 100,
      `the first stall, before the window, counted: ${second} of ${all} ms`,
    );
  } finally {
    log.stop();
  }
});

test('worstBetween counts a stall still going on only for a window that reaches into it', async () => {
  const log = new StallLog();
  try {
    await delay(30);
    const pastFrom = Date.now();
    await delay(30);
    const pastTo = Date.now();
    await delay(30);
    // What the past window holds before the loop stands still: on a loaded machine it may hold a
    // real stall of its own. The ongoing stall begins after pastTo (the 10 ms timer fired before
    // the 30 ms delay did, so it is next due after pastTo), so it must add nothing to that window.
    const before = log.worstBetween(pastFrom, pastTo);
    // the loop stands still now, longer than anything the past window holds, so that counting the
    // ongoing stall there could not hide behind a real one
    const stallMs = Math.max(150, before + 150);
    block(stallMs);
    // positive control: a window up to now sees the stall going on
    const ongoing = log.worstBetween(pastFrom);
    assert.ok(
      ongoing >= stallMs - 50,
      `the ongoing stall seen by a window up to now: ${ongoing} ms`,
    );
    // a window that ended before it began is not explained by it
    assert.equal(
      log.worstBetween(pastFrom, pastTo),
      before,
      `a past window went from ${before} ms to ${log.worstBetween(pastFrom, pastTo)} ms during a ${stallMs} ms stall that began after it`,
    );
  } finally {
    log.stop();
  }
});
