/**
 * The one mechanism by which a planted fault changes a handler of a reference target: the handler
 * is written as named steps (as aedes writes its handlers), an object of functions, and a fault
 * wraps or replaces one or more of them instead of switching inside the handler's body. A handler's
 * faults are data, a table by fault id (`StepFaults`: for each step it touches, the step to run
 * given the step it wraps); `withFaults(steps, faults)` gives the steps with the faults that are on
 * (faults/index.ts is the registry of which are) applied. With none on it returns `steps` itself:
 * no allocation, so a caller may apply it per message.
 *
 * Two ways to write the table, one mechanism under them:
 *  - a wrapper per step (`{ [id]: { step: (step) => newStep } }`): the connector
 *    (simulators/connector/step-faults.ts), whose steps have various signatures (a fault rewrites
 *    an argument, a result, or the whole step);
 *  - placed entries (`{ id, step, at: before|after|instead, changes, apply }`, `placedFaults`): the platform's topic
 *    handlers (simulators/platform/mqtt/topic-steps.ts), whose steps all take the one state of a publish and may
 *    return `STOP`. There a fault is a side effect placed around a step, and `at` + `changes` say so in one line
 *    each, which reads better than the equivalent closure; `placedFaults` turns the entries into the same wrappers.
 */
import { activeFaults, anyFaultActive, type FaultId, faultActive } from './index';

/**
 * How one fault changes a handler: for each step it touches, the step to run given the step it
 * wraps.
 */
export type StepWrappers<Steps> = {
  readonly [Name in keyof Steps]?: (step: Steps[Name]) => Steps[Name];
};

/** The faults of one handler, by id. */
export type StepFaults<Steps> = { readonly [id in FaultId]?: StepWrappers<Steps> };

/**
 * The steps with every active fault of the table applied (in the order the faults were turned on).
 */
export function withFaults<Steps extends object>(steps: Steps, faults: StepFaults<Steps>): Steps {
  if (!anyActive(faults)) return steps;
  let result = steps;
  for (const id of activeFaults()) {
    const wrappers = faults[id as FaultId];
    if (!wrappers) continue;
    result = { ...result };
    for (const name of Object.keys(wrappers) as Array<keyof Steps>) {
      const wrap = wrappers[name] as ((step: Steps[keyof Steps]) => Steps[keyof Steps]) | undefined;
      if (wrap) result[name] = wrap(result[name]);
    }
  }
  return result;
}

/** Whether a fault of the table is on (a set lookup per entry, nothing allocated). */
function anyActive(faults: StepFaults<object>): boolean {
  // no fault on (every run but the kill matrix's): no walk over the table's keys, per message
  if (!anyFaultActive()) return false;
  for (const id in faults) if (faultActive(id as FaultId)) return true;
  return false;
}

/**
 * What a step (or a placed fault) returns to end the handler there: the steps after it do not run.
 */
export const STOP = Symbol('stop');
export type StepResult = undefined | typeof STOP;

/** A step of a handler whose steps all take one state. */
export type StateStep<State> = (state: State) => StepResult | void;

/** A planted fault placed around one step of a handler whose steps all take one state. */
export interface StepFault<State, Step extends string> {
  readonly id: FaultId;
  /** The step it wraps. */
  readonly step: Step;
  /** When it runs: ahead of the step, behind it (not if the step stopped), or in its place. */
  readonly at: 'before' | 'after' | 'instead';
  /** What it changes, in a phrase (faults/catalogue/ says which requirement it breaks). */
  readonly changes: string;
  /** Returns STOP to end the handler there. */
  readonly apply: (state: State) => StepResult | void;
}

/** Placed faults as the table `withFaults` applies: each entry becomes the wrapper of its step. */
export function placedFaults<State, Step extends string>(
  entries: ReadonlyArray<StepFault<State, Step>>,
): StepFaults<Record<Step, StateStep<State>>> {
  type Wrap = (step: StateStep<State>) => StateStep<State>;
  const table: Partial<Record<FaultId, Partial<Record<Step, Wrap>>>> = {};
  for (const { id, step, at, apply } of entries) {
    const wrappers: Partial<Record<Step, Wrap>> = (table[id] ??= {});
    // one place per fault and step keeps the order of its effects the order written; no fault needs
    // two
    if (wrappers[step]) throw new Error(`fault ${id} is placed twice at step ${step}`);
    wrappers[step] =
      at === 'instead'
        ? () => apply
        : at === 'before'
          ? (inner) => (state) => (apply(state) === STOP ? STOP : inner(state))
          : (inner) => (state) => (inner(state) === STOP ? STOP : apply(state));
  }
  return table;
}
