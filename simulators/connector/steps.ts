/**
 * A handler of the connector written as named steps (as aedes writes its handlers), so that a planted fault can
 * replace or wrap one step instead of switching inside the handler's body. A handler declares its steps as an
 * object of functions; the connector's composition root (index.ts, where the route and rule tables are built)
 * passes `withFaults(steps, faults)`, and the handler only calls its steps. The faults of each handler are data:
 * step-faults.ts (a fault names the handler, the step and what it changes: the request, the answer, the call).
 */
import { activeFaults, type FaultId } from '../../faults';

/** How one fault changes a handler: for each step it touches, the step to run given the step it replaces. */
export type StepWrappers<Steps> = {
  readonly [Name in keyof Steps]?: (step: Steps[Name]) => Steps[Name];
};

/** The faults of one handler, by id. */
export type StepFaults<Steps> = { readonly [id in FaultId]?: StepWrappers<Steps> };

/** The steps with every active fault of the table applied (in the order the faults were turned on). */
export function withFaults<Steps extends object>(steps: Steps, faults: StepFaults<Steps>): Steps {
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
