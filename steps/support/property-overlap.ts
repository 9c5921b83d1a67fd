/**
 * The cases of a fast-check property checked several at a time (steps/properties.steps.ts
 * runProperty, against a target across a network): a pure helper, kept apart from the step
 * definitions so that its test can load it.
 */
import fc from 'fast-check';

/**
 * The cases fast-check's own run checks for `seed`: drawn by fc.check itself with a predicate that
 * only keeps them, so they are its values whatever its generator does (fc.sample of the same
 * property and seed draws other values from the tenth case on: its bias follows another run index).
 */
export async function casesOf<T>(
  arbitrary: fc.Arbitrary<T>,
  seed: number,
  numRuns: number,
): Promise<T[]> {
  const values: T[] = [];
  await fc.check(
    fc.asyncProperty(arbitrary, async (value) => {
      values.push(value);
    }),
    { seed, numRuns },
  );
  return values;
}

/**
 * The first failing case of an overlapped run (the lowest index among those that failed), or why
 * the run stopped.
 */
export type OverlapOutcome =
  | { kind: 'passed'; cases: number }
  | { kind: 'failed'; index: number; error: unknown; cases: number }
  | { kind: 'interrupted'; cases: number };

/**
 * Checks `values` (the cases fast-check generates for a seed, fc.sample) with at most `atOnce` of
 * them running at a time. Once one fails no further case is started (those running are awaited:
 * each deletes its devices); nor once `timeLimitMs` has passed. Returns the lowest failing index,
 * so that a serial replay from it (runProperty) reports the counterexample a serial run would have
 * found first.
 */
export async function checkOverlapped<T>(
  values: readonly T[],
  check: (value: T) => Promise<unknown>,
  atOnce: number,
  timeLimitMs: number,
): Promise<OverlapOutcome> {
  const started = performance.now();
  const failures: Array<{ index: number; error: unknown }> = [];
  let next = 0;
  let done = 0;
  let timedOut = false;
  const lane = async (): Promise<void> => {
    for (;;) {
      if (failures.length || next >= values.length) return;
      if (performance.now() - started >= timeLimitMs) {
        timedOut = true;
        return;
      }
      const index = next++;
      try {
        // a case that returns false fails, as in fast-check's asyncProperty
        if ((await check(values[index] as T)) === false)
          failures.push({ index, error: new Error('Property failed by returning false') });
      } catch (error) {
        failures.push({ index, error });
      }
      done++;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(atOnce, values.length)) }, lane));
  if (failures.length) {
    const first = failures.reduce((a, b) => (b.index < a.index ? b : a));
    return { kind: 'failed', index: first.index, error: first.error, cases: done };
  }
  if (timedOut && done < values.length) return { kind: 'interrupted', cases: done };
  return { kind: 'passed', cases: done };
}
