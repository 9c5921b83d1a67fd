/**
 * The verdict of the bench's ratio lines over alternating rounds (bench/peers.ts ratioVerdict):
 * steady rounds decide on their median; spread rounds decide only when every one falls on the same
 * side of the goal.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ratioVerdict } from '../../bench/peers';

const atLeast = (goal: number) => (ratio: number) => ratio >= goal;

test('steady rounds decide on their median', () => {
  assert.equal(ratioVerdict([0.8, 0.82, 0.78], atLeast(0.75), 0).word, 'PASS');
  assert.equal(ratioVerdict([0.7, 0.72, 0.74], atLeast(0.75), 0).word, 'FAIL');
});

test('spread rounds all on one side of the goal still decide', () => {
  const passed = ratioVerdict([0.76, 0.97, 0.82], (ratio) => ratio <= 1.5, 0);
  assert.equal(passed.word, 'PASS');
  assert.match(passed.note, /every one meets the goal/);
  const failed = ratioVerdict([0.44, 0.75, 0.54], atLeast(0.85), 0);
  assert.equal(failed.word, 'FAIL');
  assert.equal(failed.ok, false);
  assert.match(failed.note, /every one misses the goal/);
});

test('spread rounds on both sides of the goal give no verdict', () => {
  const noisy = ratioVerdict([0.75, 1.63, 1.01], atLeast(0.85), 0);
  assert.equal(noisy.word, 'INFO');
  assert.equal(noisy.ok, true);
  assert.match(noisy.note, /no verdict/);
});

test('a failed message fails the line whatever the rounds', () => {
  assert.equal(ratioVerdict([2, 2, 2], atLeast(1), 1).word, 'FAIL');
});
