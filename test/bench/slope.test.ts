/**
 * The bench's memory slopes (bench/slope.ts): a line through several readings is judged only when
 * memory grew with the load along it; a negative or noise-dominated slope gives no verdict, with
 * its reason (the generator line once printed −764 bytes per device and PASS).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fitSlope, slopeVerdict } from '../../bench/slope';

const MiB = 1048576;

test('readings on a rising line: the slope is judged against the goal', () => {
  const fit = fitSlope([
    { x: 100, y: 170 * MiB },
    { x: 5000, y: 170 * MiB + 4900 * 700 },
    { x: 10000, y: 170 * MiB + 9900 * 700 + 20_000 },
    { x: 20000, y: 170 * MiB + 19900 * 700 },
  ]);
  assert.equal(fit.noVerdict, undefined);
  assert.ok(Math.abs(fit.slope - 700) < 5, String(fit.slope));
  assert.equal(slopeVerdict(fit, 2048), 'PASS');
  assert.equal(slopeVerdict(fit, 512), 'FAIL');
});

test('a falling slope gives no verdict, however small the goal it would meet', () => {
  const fit = fitSlope([
    { x: 100, y: 190 * MiB },
    { x: 5000, y: 180 * MiB },
    { x: 20000, y: 175 * MiB },
  ]);
  assert.ok(fit.slope < 0);
  assert.match(fit.noVerdict ?? '', /not positive/);
  assert.equal(slopeVerdict(fit, 2048), 'INFO');
});

test('a rising slope through readings that fall on the way, or scatter about the line, gives no verdict', () => {
  const falling = fitSlope([
    { x: 100, y: 189 * MiB },
    { x: 5000, y: 169 * MiB },
    { x: 10000, y: 175 * MiB },
    { x: 20000, y: 184 * MiB },
  ]);
  assert.match(falling.noVerdict ?? '', /do not grow/);
  assert.equal(slopeVerdict(falling, 2048), 'INFO');
  const scattered = fitSlope([
    { x: 0, y: 100 * MiB },
    { x: 1, y: 110 * MiB },
    { x: 2, y: 110 * MiB },
    { x: 3, y: 111 * MiB },
  ]);
  assert.match(scattered.noVerdict ?? '', /explains/);
});

test('two readings give no verdict: their line cannot show its noise', () => {
  const fit = fitSlope([
    { x: 100, y: 170 * MiB },
    { x: 20000, y: 171 * MiB },
  ]);
  assert.match(fit.noVerdict ?? '', /only 2 points/);
  assert.equal(slopeVerdict(fit, 2048), 'INFO');
});
