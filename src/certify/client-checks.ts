/**
 * What every check of a client under test returns, whatever it observed (HTTP requests, MQTT
 * packets): the items it judged and the ones that break its requirement, or that its subject never
 * occurred (NOT TESTED, never PASS; NOT APPLICABLE where the client need not take the subject up at
 * all, as a gateway need not act as a device).
 */

/**
 * A two-way RPC the certification sent: when and for how long the platform waited for the reply.
 */
export interface SentRpc {
  method: string;
  /**
   * The device behind a gateway it was sent to (a gateway's certification; absent: the client's own
   * device).
   */
  device?: string;
  sentAt: number;
  timeoutMs: number;
}

export interface Violation<Item> {
  item: Item;
  reason: string;
}

export type CheckOutcome<Item> =
  /**
   * `notApplicable`: the client need not have done it (a gateway's own device traffic), so NOT
   * APPLICABLE.
   */
  | { exercised: false; reason: string; notApplicable?: true }
  | { exercised: true; judged: Item[]; violations: Violation<Item>[] };

/** One requirement's check over everything the session observed of the client. */
export type ClientCheck<Input, Item> = (input: Input) => CheckOutcome<Item>;

/** Exercised when something was judged; otherwise not exercised, for the reason given. */
export function outcome<Item>(
  judged: Item[],
  violations: Violation<Item>[],
  notExercised: string,
): CheckOutcome<Item> {
  return judged.length === 0
    ? { exercised: false, reason: notExercised }
    : { exercised: true, judged, violations };
}

/**
 * Exercised when something was judged; otherwise NOT APPLICABLE for the reason given: the
 * requirement binds an action the client may take or leave (a claim, provisioning, a firmware
 * query, a client-side RPC, timestamped telemetry), and the certification never asks for it, so a
 * client that never took it up had no occasion to break it and can still certify CONFORMANT (issue
 * 28). A requirement the certification provokes (its RPC, its attribute update) keeps `outcome`:
 * left undone it is NOT TESTED.
 */
export function optionalOutcome<Item>(
  judged: Item[],
  violations: Violation<Item>[],
  notTakenUp: string,
): CheckOutcome<Item> {
  return judged.length === 0
    ? { exercised: false, notApplicable: true, reason: notTakenUp }
    : { exercised: true, judged, violations };
}

/** The value of a JSON text, or not ok. */
export function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** Smallest ts read as milliseconds: 1e11 ms is 1973, while 1e11 s is thousands of years ahead. */
const SMALLEST_MILLISECONDS = 100_000_000_000;
/**
 * A ts this far past the message's arrival is not a clock's milliseconds (microseconds,
 * nanoseconds).
 */
const LARGEST_AHEAD_MS = 86_400_000;

/** The ts members of a telemetry body in the timestamped form, alone or as array elements. */
export function timestamps(body: unknown): unknown[] {
  const elements = Array.isArray(body) ? body : [body];
  return elements.flatMap((element) =>
    typeof element === 'object' && element !== null && 'ts' in element && 'values' in element
      ? [(element as { ts: unknown }).ts]
      : [],
  );
}

/**
 * The numeric timestamps that are not unix milliseconds of a message that arrived at `receivedAt`.
 * A ts that is not a number (a string) is the payload shape's failure (HTTP-DEV-03, MQTT-DEV-03,
 * GW-CLI-02: the schemas want an integer), not this one's: one defect, one FAIL (issue 28).
 */
export function notMilliseconds(values: unknown[], receivedAt: number): unknown[] {
  return numeric(values).filter(
    (ts) => ts < SMALLEST_MILLISECONDS || ts > receivedAt + LARGEST_AHEAD_MS,
  );
}

/** The values that are numbers: the timestamps the milliseconds checks judge. */
export function numeric(values: unknown[]): number[] {
  return values.filter((value): value is number => typeof value === 'number');
}

/**
 * An RPC request the platform handed to the client, and the client's reply under the request's own
 * id, if any.
 */
export interface AnsweredRpc<Item> {
  id: number | string;
  method: string;
  /** What carried the request to the client. */
  delivery: Item;
  reply?: { item: Item; at: number };
}

/**
 * The reply to each delivered two-way RPC of the certification arrives before its timeout. A
 * request answered only under other ids is the reply-id requirement's failure, not this one's
 * (`anyReply`); one never answered at all is.
 */
export function repliedInTime<Item>(
  requests: readonly AnsweredRpc<Item>[],
  rpcs: readonly SentRpc[],
  anyReply: boolean,
): CheckOutcome<Item> {
  const judged: Item[] = [];
  const violations: Violation<Item>[] = [];
  for (const request of requests) {
    const call = rpcs.find((rpc) => rpc.method === request.method);
    if (!call) continue;
    const expiry = call.sentAt + call.timeoutMs;
    if (request.reply) {
      judged.push(request.reply.item);
      if (request.reply.at > expiry)
        violations.push({
          item: request.reply.item,
          reason: `the reply to RPC ${request.id} arrived ${request.reply.at - expiry} ms after its ${call.timeoutMs} ms timeout`,
        });
    } else if (!anyReply) {
      judged.push(request.delivery);
      violations.push({
        item: request.delivery,
        reason: `RPC ${request.id} (${request.method}) was delivered and never answered`,
      });
    }
  }
  return outcome(
    judged,
    violations,
    'no two-way RPC of the certification was delivered and answered under its own id',
  );
}
