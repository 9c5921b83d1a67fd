/**
 * The slowest-first order of a parallel run's features (src/engine/feature-order.ts): it covers
 * exactly the features cucumber's default path finds, puts the heavy ones first, and puts features
 * without a recorded weight first (a feature added since the weights were recorded needs none).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { featureFiles, loadFeatureWeights, slowestFirst } from '../../src/engine/feature-order';

const ROOT = join(__dirname, '..', '..');

test('the heaviest features come first; equal weights keep their order', () => {
  const ordered = slowestFirst(['a.feature', 'b.feature', 'c.feature', 'd.feature'], {
    'a.feature': 10,
    'b.feature': 300,
    'c.feature': 10,
    'd.feature': 20,
  });
  assert.deepEqual(ordered, ['b.feature', 'd.feature', 'a.feature', 'c.feature']);
});

test('a feature without a recorded weight comes first', () => {
  const ordered = slowestFirst(['a.feature', 'new.feature', 'b.feature'], {
    'a.feature': 10,
    'b.feature': 300,
  });
  assert.deepEqual(ordered, ['new.feature', 'b.feature', 'a.feature']);
});

test('the features are the ones cucumber finds, and every recorded weight names one of them', () => {
  const features = featureFiles(ROOT);
  assert.ok(features.includes('features/http-device-api/telemetry.feature'), 'telemetry missing');
  assert.ok(features.every((feature) => feature.endsWith('.feature')));
  const stale = Object.keys(loadFeatureWeights(ROOT)).filter((name) => !features.includes(name));
  assert.deepEqual(
    stale,
    [],
    'weights of features that do not exist: rerun scripts/feature-weights.ts',
  );
});
