/**
 * Records how long each feature took, for the slowest-first order of parallel runs
 * (src/engine/feature-order.ts):
 *   node -r ts-node/register/transpile-only scripts/feature-weights.ts <reports>/cucumber.json
 *   [more.json ...]
 * reads the cucumber.json of full runs on the embedded target (`iotc run --reports <reports>`),
 * sums the step and hook durations per feature, takes the median over the runs given, and writes
 * features/feature-weights.json.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FEATURE_WEIGHTS_FILE } from '../src/engine/feature-order';

interface CucumberJsonFeature {
  uri: string;
  elements: { steps: { result?: { duration?: number } }[] }[];
}

const NANOSECONDS_PER_MS = 1e6;

function featureMilliseconds(file: string): Map<string, number> {
  const features = JSON.parse(readFileSync(file, 'utf8')) as CucumberJsonFeature[];
  const sums = new Map<string, number>();
  for (const feature of features) {
    // hooks are in `steps` (keyword Before/After, hidden): they count, cleanup is part of a
    // scenario's time
    const nanoseconds = feature.elements
      .flatMap((scenario) => scenario.steps)
      .reduce((sum, step) => sum + (step.result?.duration ?? 0), 0);
    sums.set(feature.uri, (sums.get(feature.uri) ?? 0) + nanoseconds / NANOSECONDS_PER_MS);
  }
  return sums;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

const files = process.argv.slice(2);
if (!files.length) {
  console.error('usage: feature-weights.ts <cucumber.json> [more cucumber.json ...]');
  process.exit(2);
}
const runs = files.map(featureMilliseconds);
const uris = [...new Set(runs.flatMap((run) => [...run.keys()]))].sort();
const weights = Object.fromEntries(
  uris.map((uri) => [uri, Math.round(median(runs.map((run) => run.get(uri) ?? 0)))]),
);
writeFileSync(join(__dirname, '..', FEATURE_WEIGHTS_FILE), `${JSON.stringify(weights, null, 2)}\n`);
console.log(`${FEATURE_WEIGHTS_FILE}: ${uris.length} features from ${files.length} run(s)`);
