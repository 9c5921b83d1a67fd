/**
 * Slowest features first for a parallel run. Cucumber hands scenarios to whichever worker is free,
 * in the order of the feature files; most scenario time is waiting (token lifetimes, claim windows,
 * limiter windows, timeouts), so a slow feature that starts last keeps one worker busy while the
 * others are done. Started first, the slow scenarios spread over the workers and the many short
 * ones fill the gaps (longest-processing-time-first).
 *
 * The weights are the milliseconds each feature took on the embedded target
 * (features/feature-weights.json, written by scripts/feature-weights.ts from a run's
 * cucumber.json). They only order the run: a stale or missing weight makes a run slower, never
 * different.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

export const FEATURE_WEIGHTS_FILE = join('features', 'feature-weights.json');

/** Every feature file under the folder, as paths relative to root, in a stable order. */
export function featureFiles(root: string, folder = 'features'): string[] {
  return readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.feature'))
    .map((path) =>
      relative(root, join(root, folder, path))
        .split(sep)
        .join('/'),
    )
    .sort();
}

/**
 * The recorded weights (feature path relative to the package root → milliseconds); none when the
 * file is absent.
 */
export function loadFeatureWeights(root: string): Record<string, number> {
  const file = join(root, FEATURE_WEIGHTS_FILE);
  if (!existsSync(file)) return {};
  return JSON.parse(readFileSync(file, 'utf8')) as Record<string, number>;
}

/**
 * The features, heaviest first; equal weights keep their order. A feature without a weight (new
 * since the weights were recorded) goes first: its duration is unknown, and a short one started
 * early costs little, a long one started last costs its whole length.
 */
export function slowestFirst(
  features: readonly string[],
  weights: Record<string, number>,
): string[] {
  const weight = (feature: string) => weights[feature] ?? Number.POSITIVE_INFINITY;
  return features
    .map((feature, index) => ({ feature, index }))
    .sort((a, b) => weight(b.feature) - weight(a.feature) || a.index - b.index)
    .map(({ feature }) => feature);
}

/**
 * The order of a parallel run against a remote target: the features that hold a scenario that runs
 * alone first, then those that set the system's token lifetimes, then the rest slowest first
 * (src/engine/exclusive.ts says why). `rank` gives each feature its place (exclusive.ts
 * featureRank).
 */
export function remoteOrder(
  features: readonly string[],
  weights: Record<string, number>,
  rank: (feature: string) => number,
): string[] {
  const ranks = new Map(features.map((feature) => [feature, rank(feature)]));
  const slowest = slowestFirst(features, weights);
  return [...slowest].sort((a, b) => ranks.get(a)! - ranks.get(b)!);
}
