/**
 * What the MQTT device and gateway checks share: a payload against its schema, the ts of a publish
 * in milliseconds, and a request that expects an answer following a subscription to the answer's
 * topic on its connection.
 */
import { validate } from '../../schemas/validate';
import { topicMatches } from '../../lib/mqtt/topic-filter';
import {
  type AnsweredRpc,
  type CheckOutcome,
  type Violation,
  notMilliseconds,
  numeric,
  outcome,
  parseJson,
} from './client-checks';
import { type ObservedPacket, filtersBefore, payloadOf, type sent } from './mqtt-packets';

export type Publish = ReturnType<typeof sent<'publish'>>[number];

/** An RPC request delivered to the client: its id and method, and the packet that carried it. */
export interface DeliveredRpc {
  id: number | string;
  method: string;
  observed: ObservedPacket;
}

/**
 * Each delivered RPC request with the first of the replies that `answers` it (what repliedInTime
 * judges).
 */
export function answeredRpcs<Request extends DeliveredRpc>(
  requests: readonly Request[],
  replies: readonly Publish[],
  answers: (reply: Publish, request: Request) => boolean,
): AnsweredRpc<ObservedPacket>[] {
  return requests.map((request) => {
    const reply = replies.find((candidate) => answers(candidate, request));
    return {
      id: request.id,
      method: request.method,
      delivery: request.observed,
      ...(reply ? { reply: { item: reply as ObservedPacket, at: reply.at } } : {}),
    };
  });
}

/** The publish's payload against a schema: no violation, or one saying what is wrong. */
export function schemaViolations(observed: Publish, schema: object): Violation<ObservedPacket>[] {
  const { topic } = observed.packet;
  const parsed = parseJson(payloadOf(observed.packet));
  if (!parsed.ok) return [{ item: observed, reason: `PUBLISH ${topic}: the payload is not JSON` }];
  const check = validate(schema, parsed.value);
  return check.ok
    ? []
    : [{ item: observed, reason: `PUBLISH ${topic}: ${check.errors.slice(0, 3).join('; ')}` }];
}

/**
 * The publishes that carry a ts (`tsOf` finds them in a parsed payload), each judged for unix
 * milliseconds.
 */
export function millisecondsOutcome(
  publishes: readonly Publish[],
  tsOf: (payload: unknown) => unknown[],
  notExercised: string,
): CheckOutcome<ObservedPacket> {
  const judged: ObservedPacket[] = [];
  const violations: Violation<ObservedPacket>[] = [];
  for (const observed of publishes) {
    const parsed = parseJson(payloadOf(observed.packet));
    const found = numeric(parsed.ok ? tsOf(parsed.value) : []);
    if (found.length === 0) continue;
    judged.push(observed);
    const wrong = notMilliseconds(found, observed.at);
    if (wrong.length)
      violations.push({
        item: observed,
        reason: `ts ${wrong.map(String).join(', ')} is not unix milliseconds (the publish arrived at ${observed.at})`,
      });
  }
  return outcome(judged, violations, notExercised);
}

/**
 * Each request expecting an answer on `topic` follows a subscription matching it on the same
 * connection.
 */
export function subscribedOutcome(
  packets: readonly ObservedPacket[],
  expecting: ReadonlyArray<{ observed: Publish; topic: string }>,
  notExercised: string,
): CheckOutcome<ObservedPacket> {
  const violations = expecting
    .filter(
      ({ observed, topic }) =>
        !filtersBefore(packets, observed.connection, observed.at).some((filter) =>
          topicMatches(filter, topic),
        ),
    )
    .map(({ observed, topic }) => ({
      item: observed as ObservedPacket,
      reason: `PUBLISH ${observed.packet.topic} before any subscription matching ${topic}`,
    }));
  return outcome<ObservedPacket>(
    expecting.map((entry) => entry.observed),
    violations,
    notExercised,
  );
}
