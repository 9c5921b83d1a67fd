/**
 * The steps of a connector answer (steps.ts) and the faults that wrap them (responses.ts applies
 * them per answer). Apart from step-faults.ts, which imports the handlers that import responses.ts.
 */
import type { StepFaults } from '../../faults/steps';

export interface AnswerSteps {
  /** Whether a status is answered with unsuccessfulResponse (hardcoded variant). */
  unsuccessful(status: number): boolean;
  /** The body of the default variant. */
  defaultBody(status: number): string;
}

export const ANSWER_STEPS: AnswerSteps = {
  unsuccessful: (status) => status !== 200,
  defaultBody: () => '',
};

export const ANSWER_FAULTS: StepFaults<AnswerSteps> = {
  'RC-ERR-01:only-401-unsuccessful': { unsuccessful: () => (status) => status === 401 },
  'RC-RESP-01:default-body': {
    defaultBody: (step) => (status) => (status === 200 ? 'OK' : step(status)),
  },
};
