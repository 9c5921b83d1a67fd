/**
 * What the operator console shows, kept up to date from the session's events (session-steps.ts):
 * the URL and token to give the device, the steps and the one now running, the messages of the
 * client as they arrive, and the checklist: the device requirements judged by the same checks as
 * the reports (device-verdicts.ts) over the requests seen so far.
 */
import type { ObservedExchange } from '../../../simulators/platform';
import type { RequirementResult } from '../../report/verdicts';
import type { SentRpc } from '../http-device-checks';
import type { ObservedPacket } from '../mqtt-packets';
import type { SessionEvent, StepOutcome, StepPlan, StepState } from '../session-steps';

/** What the client did so far, as the checks read it. */
export interface SeenSoFar {
  token: string;
  exchanges: readonly ObservedExchange[];
  packets: readonly ObservedPacket[];
  /** RPCs whose outcome is known: a sent one still waiting for its reply is not yet a failure. */
  rpcs: readonly SentRpc[];
}

/**
 * The requirements judged over what was seen so far: the same checks and verdicts as the reports
 * (device-verdicts.ts), for the kind of client certified (cli/certify.ts makes it).
 */
export type LiveJudge = (seen: SeenSoFar) => readonly RequirementResult[];

/** How many of the latest messages the console lists (the reports keep the evidence). */
const SHOWN_MESSAGES = 200;

/**
 * `not applicable so far`: the client has not taken up an action the certification never asks for
 * (a claim, a client-side RPC): NOT APPLICABLE in the report if it never does, so no step waits for
 * it.
 */
export type LiveVerdict = 'PASS' | 'FAIL' | 'not yet' | 'not applicable so far';

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
  /** MQTT clients: the broker URL and the MQTT version asked; a gateway: the device it connects. */
  mqttUrl: string | undefined;
  mqttVersion: string | undefined;
  deviceName: string | undefined;
  readonly steps: StepView[];
  readonly messages: ObservedExchange[] = [];
  /** The latest MQTT packets, both ways (an MQTT client's messages). */
  readonly packets: ObservedPacket[] = [];
  private readonly allPackets: ObservedPacket[] = [];
  finished = false;
  finishRequested = false;
  verdict: ConsoleVerdict | undefined;
  private readonly exchanges: ObservedExchange[] = [];
  /** RPCs whose outcome is known: a sent one still waiting for its reply is not yet a failure. */
  private readonly settledRpcs: SentRpc[] = [];

  constructor(
    plan: readonly StepPlan[],
    private readonly judge: LiveJudge,
  ) {
    this.steps = plan.map((step) => ({ ...step, state: 'pending' }));
  }

  apply(event: SessionEvent): void {
    switch (event.kind) {
      case 'ready':
        this.httpUrl = event.httpUrl;
        this.token = event.token;
        this.mqttUrl = event.mqttUrl;
        this.mqttVersion = event.mqttVersion;
        this.deviceName = event.deviceName;
        break;
      case 'packet':
        this.allPackets.push(event.packet);
        this.packets.push(event.packet);
        if (this.packets.length > SHOWN_MESSAGES) this.packets.shift();
        break;
      case 'step': {
        const step = this.steps.find((candidate) => candidate.id === event.id);
        if (step) {
          step.state = event.state;
          // the session's own words (a gateway's step names the device it chose)
          step.instruction = event.instruction;
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
    const requirements = this.judge({
      token: this.token,
      exchanges: this.exchanges,
      packets: this.allPackets,
      rpcs: this.settledRpcs,
    });
    return requirements.map((requirement) => {
      const error = requirement.scenarios[0]?.error;
      return {
        id: requirement.id,
        statement: requirement.statement,
        verdict:
          requirement.verdict === 'PASS' || requirement.verdict === 'FAIL'
            ? requirement.verdict
            : requirement.verdict === 'NOT APPLICABLE'
              ? 'not applicable so far'
              : 'not yet',
        ...(requirement.reason ? { detail: requirement.reason } : {}),
        ...(error ? { detail: error } : {}),
      };
    });
  }
}
