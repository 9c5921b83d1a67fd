/**
 * What a certification session tells its watchers (the operator console, src/certify/console/) as
 * it happens, and how it walks its steps: each step is announced, waits (bounded) for the client or
 * the platform to act, and ends with an outcome that is kept, so a requirement left NOT TESTED can
 * say which step did not happen and why.
 */
import type { ObservedExchange } from '../../simulators/platform';
import type { SentRpc } from './http-device-checks';
import type { ObservedPacket } from './mqtt-packets';

export type StepState = 'started' | 'waiting-for-operator' | 'done';

/** How a step ended: its subject happened, or why not. */
export type StepOutcome =
  | 'done'
  | 'timed out'
  | 'finished by the operator'
  | 'the client ended'
  | 'not reached';

export interface StepRecord {
  id: string;
  /** In plain words, for the person at the console ("send telemetry now"). */
  instruction: string;
  /** The requirements only this step's subject exercises. */
  requirements: readonly string[];
  /** As StepPlan.asks. */
  asks?: true;
  outcome: StepOutcome;
  /** The bound of the wait, when the step waited for the client. */
  timeoutMs?: number;
}

export type SessionEvent =
  /**
   * What to give the client: the HTTP URL, the token and, for MQTT clients, the MQTT URL and
   * version asked; for a gateway, the device it connects.
   */
  | {
      kind: 'ready';
      httpUrl: string;
      token: string;
      mqttUrl?: string;
      mqttVersion?: string;
      deviceName?: string;
    }
  /** An MQTT packet of the client's connections, either way. */
  | { kind: 'packet'; packet: ObservedPacket }
  | {
      kind: 'step';
      id: string;
      instruction: string;
      state: StepState;
      outcome?: StepOutcome;
    }
  /** A request of the client under test, answered. */
  | { kind: 'message'; exchange: ObservedExchange }
  /** A two-way RPC of the certification: sent, then settled (answered or timed out). */
  | { kind: 'rpc'; rpc: SentRpc; settled: boolean }
  | { kind: 'finished' };

export type SessionListener = (event: SessionEvent) => void;

export interface StepPlan {
  id: string;
  instruction: string;
  requirements: readonly string[];
  /**
   * The step asks the client for its requirements' subject (the console's "send telemetry now"):
   * when it did not happen, a requirement NOT APPLICABLE for want of that subject is NOT TESTED
   * instead (the client had no occasion).
   */
  asks?: true;
}

/**
 * Requests of the client as they arrive (before they are answered, so a long-poll counts at once):
 * a wait for a request of some kind is met by one that came before the wait began, too.
 */
export class Arrivals {
  private readonly seen: Array<{ method: string; path: string }> = [];
  private readonly waiting: Array<{
    matches: (method: string, path: string) => boolean;
    resolve: () => void;
  }> = [];

  arrived(method: string, url: string): void {
    const path = url.split('?')[0];
    this.seen.push({ method, path });
    for (const wait of this.waiting.filter((candidate) => candidate.matches(method, path))) {
      this.waiting.splice(this.waiting.indexOf(wait), 1);
      wait.resolve();
    }
  }

  until(matches: (method: string, path: string) => boolean): Promise<void> {
    if (this.seen.some((request) => matches(request.method, request.path)))
      return Promise.resolve();
    return new Promise((resolve) => this.waiting.push({ matches, resolve }));
  }
}

/** Walks the steps of a session in order, telling the listener, and keeps every step's outcome. */
export class StepWalker {
  readonly records: StepRecord[] = [];
  private operatorFinished = false;
  /** Settles when the operator presses finish; never otherwise. */
  private readonly finished: Promise<'finished by the operator'>;

  constructor(
    private readonly plan: readonly StepPlan[],
    private readonly listener: SessionListener,
    finish: Promise<void> | undefined,
  ) {
    this.finished = (finish ?? new Promise<void>(() => {})).then(() => {
      this.operatorFinished = true;
      return 'finished by the operator' as const;
    });
  }

  /** True once the operator pressed finish: the steps not yet walked are not reached. */
  get finishedByOperator(): boolean {
    return this.operatorFinished;
  }

  /**
   * Runs a step of the plan: the platform's action (if any), then, with `wait`, waits until the
   * client acted, the bound passed, the operator finished, or `ended` (the client process ending)
   * resolved. The outcome is recorded and told. Once the operator has finished, a step is not run
   * at all: it is recorded as not reached.
   */
  async run(
    step: StepPlan,
    options: {
      act?: () => Promise<void>;
      /**
       * Settles when the client acted; with an outcome when the wait decides it (an RPC that timed
       * out).
       */
      wait?: () => Promise<StepOutcome | undefined>;
      timeoutMs?: number;
      /** The bound the wait has of its own (the RPC's timeout), for the record. */
      boundMs?: number;
      ended?: Promise<unknown>;
    } = {},
  ): Promise<StepOutcome> {
    if (this.operatorFinished) return this.record(step, 'not reached');
    this.tell(step, 'started');
    await options.act?.();
    let outcome: StepOutcome = 'done';
    if (options.wait) {
      this.tell(step, 'waiting-for-operator');
      let timer: NodeJS.Timeout | undefined;
      outcome = await Promise.race<StepOutcome>([
        options.wait().then((decided) => decided ?? 'done'),
        this.finished,
        ...(options.ended ? [options.ended.then(() => 'the client ended' as const)] : []),
        ...(options.timeoutMs === undefined
          ? []
          : [
              new Promise<StepOutcome>((resolve) => {
                timer = setTimeout(() => resolve('timed out'), options.timeoutMs);
              }),
            ]),
      ]);
      clearTimeout(timer);
    }
    return this.record(step, outcome, options.timeoutMs ?? options.boundMs);
  }

  /** The steps of the plan never run are recorded as not reached. */
  close(): StepRecord[] {
    for (const step of this.plan)
      if (!this.records.some((record) => record.id === step.id)) {
        this.records.push({ ...step, outcome: 'not reached' });
        this.tell(step, 'done', 'not reached');
      }
    return this.records;
  }

  private record(step: StepPlan, outcome: StepOutcome, timeoutMs?: number): StepOutcome {
    this.records.push({ ...step, outcome, ...(timeoutMs === undefined ? {} : { timeoutMs }) });
    this.tell(step, 'done', outcome);
    return outcome;
  }

  private tell(step: StepPlan, state: StepState, outcome?: StepOutcome): void {
    this.listener({
      kind: 'step',
      id: step.id,
      instruction: step.instruction,
      state,
      ...(outcome ? { outcome } : {}),
    });
  }
}

/**
 * A requirement left NOT TESTED also says which of the steps that were to exercise it did not
 * happen, and why (timed out after its bound, finished by the operator before it, not reached). One
 * NOT APPLICABLE (the client never took its subject up) whose step did not happen is NOT TESTED for
 * the same reason: the client never had the occasion.
 */
export function explainNotTested<Result extends { id: string; verdict: string; reason?: string }>(
  requirements: readonly Result[],
  records: readonly StepRecord[],
): Result[] {
  return requirements.map((requirement) => {
    const untaken =
      requirement.verdict === 'NOT APPLICABLE' &&
      records.some(
        (record) =>
          record.asks && record.outcome !== 'done' && record.requirements.includes(requirement.id),
      );
    if (requirement.verdict !== 'NOT TESTED' && !untaken) return requirement;
    const why = records
      .filter((record) => record.outcome !== 'done' && record.requirements.includes(requirement.id))
      .map(
        (record) =>
          `the step "${record.instruction}" ${record.outcome === 'timed out' ? `timed out after ${record.timeoutMs} ms` : record.outcome === 'not reached' ? 'was not reached' : `ended: ${record.outcome}`}`,
      );
    // a step that would have given the client the occasion did not happen: not "never took it up"
    // but untested
    return why.length === 0
      ? requirement
      : {
          ...requirement,
          verdict: 'NOT TESTED',
          reason: [requirement.reason, ...why].filter(Boolean).join('; '),
        };
  });
}
