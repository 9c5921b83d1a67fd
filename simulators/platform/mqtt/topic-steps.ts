/**
 * A topic handler as a list of named steps (as aedes writes its handlers), and the planted faults of that handler
 * as wrappers registered at its entry: a fault names the step it wraps, when it runs (before, after or instead of
 * it) and what it changes, so a step's body holds only behaviour. faults/index.ts stays the registry of which
 * faults are on; with none on, runSteps runs the steps and nothing else.
 */
import { type FaultId, faultActive } from '../../../faults';

/** What a step or a fault wrapper returns to end the handler there: the steps after it do not run. */
export const STOP = Symbol('stop');
export type StepResult = undefined | typeof STOP;

/** A planted fault of one handler, wrapping one of its steps. */
export interface StepFault<State, Step extends string> {
  readonly id: FaultId;
  /** The step it wraps; `parse` is the step that reads the payload into the state. */
  readonly step: Step;
  /** When it runs: ahead of the step, behind it, or in its place. */
  readonly at: 'before' | 'after' | 'instead';
  /** What it changes, in a phrase (faults/catalogue/ says which requirement it breaks). */
  readonly changes: string;
  readonly apply: (state: State) => StepResult | void;
}

/** One topic's handler: `parse` makes the state from the publish, then the steps run in their written order. */
export interface StepHandler<Input, State, Step extends string> {
  readonly parse: (input: Input) => State;
  readonly steps: { readonly [Name in Step]: (state: State) => StepResult | void };
  readonly faults: ReadonlyArray<StepFault<State, 'parse' | NoInfer<Step>>>;
}

/** A handler of state `State` (curried so the step names are inferred while the state is given). */
export function stepHandler<Input, State>() {
  return <Step extends string>(handler: StepHandler<Input, State, Step>) => handler;
}

/** Runs a handler on one publish: its steps in order, each wrapped by the handler's faults that are on. */
export function runSteps<Input, State, Step extends string>(
  handler: StepHandler<Input, State, Step>,
  input: Input,
): void {
  const active = handler.faults.filter((fault) => faultActive(fault.id));
  const state = handler.parse(input);
  if (active.length === 0) {
    for (const step of Object.values<(state: State) => StepResult | void>(handler.steps))
      if (step(state) === STOP) return;
    return;
  }
  if (wrap(active, 'parse', 'after', state) === STOP) return;
  for (const [name, step] of Object.entries<(state: State) => StepResult | void>(handler.steps)) {
    if (wrap(active, name, 'before', state) === STOP) return;
    const instead = active.find((fault) => fault.step === name && fault.at === 'instead');
    if ((instead ? instead.apply(state) : step(state)) === STOP) return;
    if (wrap(active, name, 'after', state) === STOP) return;
  }
}

function wrap<State>(
  active: ReadonlyArray<StepFault<State, string>>,
  step: string,
  at: 'before' | 'after',
  state: State,
): StepResult {
  for (const fault of active)
    if (fault.step === step && fault.at === at && fault.apply(state) === STOP) return STOP;
  return undefined;
}
