/**
 * A topic handler of the platform: `parse` makes the state of one publish, then named steps run in
 * their written order on that state (as aedes writes its handlers). Its planted faults are declared
 * at the same entry as placed wrappers of its steps (`{ id, step, at, changes, apply }`); they are
 * applied by the one step-fault mechanism of the reference targets, faults/steps.ts
 * (`placedFaults`, `withFaults`), so a step's body holds only behaviour. With no fault on, runSteps
 * runs the steps and nothing else: nothing is allocated beyond the state.
 */
import {
  placedFaults,
  type StateStep,
  STOP,
  type StepFault,
  type StepFaults,
  withFaults,
} from '../../../faults/steps';

/**
 * One topic's handler as written: `parse` makes the state from the publish, then the steps in their
 * written order.
 */
export interface StepHandler<Input, State, Step extends string> {
  readonly parse: (input: Input) => State;
  readonly steps: { readonly [Name in Step]: StateStep<State> };
  /**
   * `parse` is the step that reads the payload into the state: a fault placed after it sees that
   * state.
   */
  readonly faults: ReadonlyArray<StepFault<State, 'parse' | NoInfer<Step>>>;
}

/**
 * A handler ready to run: its steps behind a `parse` checkpoint, and its faults as withFaults'
 * table.
 */
export interface TopicHandler<Input, State, Step extends string>
  extends StepHandler<Input, State, Step> {
  readonly run: Readonly<Record<'parse' | Step, StateStep<State>>>;
  readonly table: StepFaults<Record<'parse' | Step, StateStep<State>>>;
}

/** A handler of state `State` (curried so the step names are inferred while the state is given). */
export function stepHandler<Input, State>() {
  return <Step extends string>(
    handler: StepHandler<Input, State, Step>,
  ): TopicHandler<Input, State, Step> => {
    if (Object.hasOwn(handler.steps, 'parse')) throw new Error('a step may not be named parse');
    // `parse` runs first as a step doing nothing to the state it made, so the faults placed after
    // it wrap a step
    const run = { parse: () => undefined, ...handler.steps } as Record<
      'parse' | Step,
      StateStep<State>
    >;
    return { ...handler, run, table: placedFaults(handler.faults) };
  };
}

/**
 * Runs a handler on one publish: parse, then its steps in order (with its faults that are on),
 * until one stops.
 */
export function runSteps<Input, State, Step extends string>(
  handler: TopicHandler<Input, State, Step>,
  input: Input,
): void {
  const steps = withFaults(handler.run, handler.table);
  const state = handler.parse(input);
  for (const name in steps) if (steps[name as 'parse' | Step](state) === STOP) return;
}
