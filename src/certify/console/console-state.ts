/**
 * What the operator console shows, kept up to date from the session's events (session-steps.ts): the URL and token to
 * give the device, the steps and the one now running, the messages of the client as they arrive, and the checklist:
 * the device requirements judged by the same checks as the reports (device-verdicts.ts) over the requests seen so far.
 */
import type { Requirement } from '../../../schemas';
import type { ObservedExchange } from '../../../simulators/platform';
import { HTTP_EVIDENCE, deviceVerdicts } from '../device-verdicts';
import type { DeviceCheck, SentRpc } from '../http-device-checks';
import type { SessionEvent, StepOutcome, StepPlan, StepState } from '../session-steps';

/** How many of the latest messages the console lists (the reports keep the evidence). */
const SHOWN_MESSAGES = 200;

export type LiveVerdict = 'PASS' | 'FAIL' | 'not yet';

export interface ChecklistRow {
  id: string;
  statement: string;
  verdict: LiveVerdict;
  /** Why it is not yet decided, or what broke it. */
  detail?: string;
}

export interface StepView {
  id: string;
  instruction: string;
  state: StepState | 'pending';
  outcome?: StepOutcome;
}

/** The session's end as the console shows it, once the reports are written. */
export interface ConsoleVerdict {
  verdict: string;
  reports: string;
}

export class ConsoleState {
  httpUrl = '';
  token = '';
  readonly steps: StepView[];
  readonly messages: ObservedExchange[] = [];
  finished = false;
  finishRequested = false;
  verdict: ConsoleVerdict | undefined;
  private readonly exchanges: ObservedExchange[] = [];
  /** RPCs whose outcome is known: a sent one still waiting for its reply is not yet a failure. */
  private readonly settledRpcs: SentRpc[] = [];

  constructor(
    plan: readonly StepPlan[],
    private readonly catalogue: readonly Requirement[],
    private readonly checks: ReadonlyMap<string, DeviceCheck>,
  ) {
    this.steps = plan.map((step) => ({ ...step, state: 'pending' }));
  }

  apply(event: SessionEvent): void {
    switch (event.kind) {
      case 'ready':
        this.httpUrl = event.httpUrl;
        this.token = event.token;
        break;
      case 'step': {
        const step = this.steps.find((candidate) => candidate.id === event.id);
        if (step) {
          step.state = event.state;
          if (event.outcome) step.outcome = event.outcome;
        }
        break;
      }
      case 'message':
        this.exchanges.push(event.exchange);
        this.messages.push(event.exchange);
        if (this.messages.length > SHOWN_MESSAGES) this.messages.shift();
        break;
      case 'rpc':
        if (event.settled) this.settledRpcs.push(event.rpc);
        break;
      case 'finished':
        this.finished = true;
        break;
    }
  }

  /** The step now running, if any. */
  current(): StepView | undefined {
    return this.steps.find(
      (step) => step.state === 'started' || step.state === 'waiting-for-operator',
    );
  }

  checklist(): ChecklistRow[] {
    const { requirements } = deviceVerdicts(
      this.catalogue,
      this.checks,
      {
        token: this.token,
        exchanges: this.exchanges,
        rpcs: this.settledRpcs,
      },
      HTTP_EVIDENCE,
    );
    return requirements.map((requirement) => {
      const error = requirement.scenarios[0]?.error;
      return {
        id: requirement.id,
        statement: requirement.statement,
        verdict:
          requirement.verdict === 'PASS' || requirement.verdict === 'FAIL'
            ? requirement.verdict
            : 'not yet',
        ...(requirement.reason ? { detail: requirement.reason } : {}),
        ...(error ? { detail: error } : {}),
      };
    });
  }
}
