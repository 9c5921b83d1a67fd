/**
 * The HTTP device's own obligations (catalogue role `device`, HTTP-DEV-01..07), judged from the
 * requests the client under test sent to the instrumented reference (simulators/platform/traffic.ts
 * `ObservedExchange`).
 *
 * Each check returns the requests it judged and the ones that break it. A requirement whose subject
 * never occurred (no request with a body, no timestamped telemetry, no RPC reply) is not exercised:
 * NOT TESTED with the reason, never PASS.
 */
import {
  claimSchema,
  clientAttributesSchema,
  firmwareQuerySchema,
  longPollQuerySchema,
  provisionRequestSchema,
  telemetrySchema,
} from '../../schemas';
import { validate } from '../../schemas/validate';
import type { ObservedExchange } from '../../simulators/platform';
import {
  type ClientCheck,
  type Violation as ClientViolation,
  type SentRpc,
  notMilliseconds,
  numeric,
  optionalOutcome,
  outcome,
  parseJson,
  repliedInTime,
  timestamps,
} from './client-checks';

export type { SentRpc } from './client-checks';

export interface CheckInput {
  token: string;
  /** The client's requests, in arrival order. */
  exchanges: readonly ObservedExchange[];
  rpcs: readonly SentRpc[];
}

export type Violation = ClientViolation<ObservedExchange>;
export type DeviceCheck = ClientCheck<CheckInput, ObservedExchange>;

/**
 * The resources of the HTTP device API after /api/v1/{token}/ (docs/reference/interfaces.md, "HTTP
 * device API").
 */
const RESOURCE = /^(telemetry|attributes|attributes\/updates|rpc|rpc\/\d+|claim|firmware)$/;

function pathOf(exchange: ObservedExchange): string {
  const at = exchange.url.indexOf('?');
  return at < 0 ? exchange.url : exchange.url.slice(0, at);
}

/**
 * The resource after /api/v1/{token}/. A trailing slash is left out unless `exact`: it is
 * HTTP-DEV-01's failure (the URL form, judged exactly), and the other checks judge the request as
 * the resource it was answered as, so a trailing slash fails that one requirement and leaves no
 * other NOT TESTED (one defect, one FAIL, issue 28).
 */
function resourceOf(exchange: ObservedExchange, token: string, exact = false): string | undefined {
  const prefix = `/api/v1/${token}/`;
  const path = pathOf(exchange);
  if (!path.startsWith(prefix)) return undefined;
  const resource = path.slice(prefix.length);
  return exact ? resource : resource.replace(/\/$/, '');
}

function posts(input: CheckInput, resource: RegExp): ObservedExchange[] {
  return input.exchanges.filter(
    (exchange) =>
      exchange.method === 'POST' && resource.test(resourceOf(exchange, input.token) ?? ''),
  );
}

function parsed(exchange: ObservedExchange): ReturnType<typeof parseJson> {
  return parseJson(exchange.requestBody);
}

/**
 * HTTP-DEV-01: /api/v1/{its token}/<a resource of the API> (or /api/v1/provision, which has no
 * token).
 */
const urlForm: DeviceCheck = (input) => {
  const violations = input.exchanges.flatMap((exchange) => {
    if (pathOf(exchange) === '/api/v1/provision') return [];
    const resource = resourceOf(exchange, input.token, true);
    if (resource !== undefined && RESOURCE.test(resource)) return [];
    const trailing = resource?.endsWith('/') && RESOURCE.test(resource.slice(0, -1));
    return [
      {
        item: exchange,
        reason:
          resource === undefined
            ? `${exchange.method} ${pathOf(exchange).replace(input.token, '{token}')} is not /api/v1/{token}/... with the device's token`
            : trailing
              ? `${exchange.method} /api/v1/{token}/${resource}: a trailing slash, not the URL of the resource ${resource.slice(0, -1)}`
              : `${exchange.method} /api/v1/{token}/${resource}: no such resource of the HTTP device API`,
      },
    ];
  });
  return outcome([...input.exchanges], violations, 'the client sent no request');
};

/**
 * HTTP-DEV-02: a request with a body says Content-Type: application/json (parameters such as
 * charset allowed).
 */
const contentType: DeviceCheck = (input) => {
  const judged = input.exchanges.filter((exchange) => exchange.requestBody.length > 0);
  const violations = judged
    .filter(
      (exchange) =>
        (exchange.contentType ?? '').split(';')[0].trim().toLowerCase() !== 'application/json',
    )
    .map((exchange) => ({
      item: exchange,
      reason: `${exchange.method} with a body and Content-Type ${exchange.contentType === undefined ? '(none)' : JSON.stringify(exchange.contentType)}`,
    }));
  return outcome(judged, violations, 'the client sent no request with a body');
};

/**
 * HTTP-DEV-03: telemetry is one of the three forms, attributes a JSON object of client-side
 * attributes.
 */
const payloadShapes: DeviceCheck = (input) => {
  const judged = posts(input, /^(telemetry|attributes)$/);
  const violations = judged.flatMap((exchange) => {
    const resource = resourceOf(exchange, input.token);
    const body = parsed(exchange);
    if (!body.ok) return [{ item: exchange, reason: `POST ${resource}: the body is not JSON` }];
    const schema = resource === 'telemetry' ? telemetrySchema : clientAttributesSchema;
    const check = validate(schema, body.value);
    return check.ok
      ? []
      : [{ item: exchange, reason: `POST ${resource}: ${check.errors.slice(0, 3).join('; ')}` }];
  });
  return outcome(judged, violations, 'the client posted no telemetry and no attributes');
};

/**
 * HTTP-DEV-04: a timestamped form's ts is unix milliseconds (not seconds, not micro- or
 * nanoseconds).
 */
const milliseconds: DeviceCheck = (input) => {
  const judged = posts(input, /^telemetry$/).filter((exchange) => {
    const body = parsed(exchange);
    return body.ok && numeric(timestamps(body.value)).length > 0;
  });
  const violations = judged.flatMap((exchange) => {
    const body = parsed(exchange);
    const wrong = notMilliseconds(body.ok ? timestamps(body.value) : [], exchange.receivedAt);
    return wrong.length
      ? [
          {
            item: exchange,
            reason: `ts ${wrong.map(String).join(', ')} is not unix milliseconds (the request arrived at ${exchange.receivedAt})`,
          },
        ]
      : [];
  });
  return optionalOutcome(
    judged,
    violations,
    'the client sent no telemetry in the timestamped form (it may let the server assign the ts)',
  );
};

/** An RPC request the platform handed to the client: the answers of its GET rpc polls. */
interface DeliveredRpc {
  id: number;
  method: string;
  /** The GET rpc that carried it. */
  poll: ObservedExchange;
}

function deliveredRpcs(input: CheckInput): DeliveredRpc[] {
  return input.exchanges.flatMap((exchange) => {
    if (exchange.method !== 'GET' || resourceOf(exchange, input.token) !== 'rpc') return [];
    if (exchange.status !== 200) return [];
    try {
      const request = JSON.parse(exchange.responseBody) as { id?: unknown; method?: unknown };
      return typeof request.id === 'number' && typeof request.method === 'string'
        ? [{ id: request.id, method: request.method, poll: exchange }]
        : [];
    } catch {
      return [];
    }
  });
}

function replies(input: CheckInput): Array<{ exchange: ObservedExchange; id: number }> {
  return posts(input, /^rpc\/\d+$/).map((exchange) => ({
    exchange,
    id: Number((resourceOf(exchange, input.token) ?? '').slice('rpc/'.length)),
  }));
}

/**
 * HTTP-DEV-05: a reply goes to rpc/{id} with the id of an RPC request delivered to the client
 * before it.
 */
const replyId: DeviceCheck = (input) => {
  const delivered = deliveredRpcs(input);
  const all = replies(input);
  const violations = all
    .filter(
      ({ exchange, id }) =>
        !delivered.some((rpc) => rpc.id === id && rpc.poll.receivedAt <= exchange.receivedAt),
    )
    .map(({ exchange, id }) => ({
      item: exchange,
      reason: `a reply to RPC ${id}, but the requests delivered were ${delivered.map((rpc) => rpc.id).join(', ') || 'none'}`,
    }));
  return outcome(
    all.map((reply) => reply.exchange),
    violations,
    'the client posted no RPC reply',
  );
};

/**
 * HTTP-DEV-06: the reply to a delivered two-way RPC of the certification arrives before its
 * timeout. A request answered only under other ids is HTTP-DEV-05's failure, not this one's; a
 * request never answered at all is this.
 */
const replyInTime: DeviceCheck = (input) => {
  const all = replies(input);
  const requests = deliveredRpcs(input).map((rpc) => {
    const reply = all.find((candidate) => candidate.id === rpc.id);
    return {
      id: rpc.id,
      method: rpc.method,
      delivery: rpc.poll,
      ...(reply ? { reply: { item: reply.exchange, at: reply.exchange.receivedAt } } : {}),
    };
  });
  return repliedInTime(requests, input.rpcs, all.length > 0);
};

/**
 * The query parameters of GET attributes (docs/reference/interfaces.md, "HTTP device API"): the
 * only names the platform reads.
 */
const ATTRIBUTE_REQUEST_PARAMETERS = new Set(['clientKeys', 'sharedKeys']);

/**
 * A key list that is not comma-separated key names: a JSON array or string literal (["a","b"],
 * "a"), whose brackets and quotes the platform takes as part of the names (comma-separated names,
 * `clientKeys=a,b`: docs/reference/platform-facts.md §3), so the keys asked for are never answered
 * (issue 28: clientKeys=["a"] got {} and certified CONFORMANT).
 */
function notKeyNames(value: string): boolean {
  return value
    .split(',')
    .map((key) => key.trim())
    .some((key) => /^[["]|[\]"]$/.test(key));
}

/**
 * HTTP-DEV-07: an attribute request names its keys in clientKeys and sharedKeys, as comma-separated
 * names. Any other parameter is not read, so the platform answers with every client and shared
 * attribute instead of the requested ones (docs/reference/platform-facts.md §3); a key list in
 * another form (a JSON literal) names keys that do not exist, so the ones asked for are not
 * answered.
 */
const attributeRequestKeys: DeviceCheck = (input) => {
  const judged = input.exchanges.filter(
    (exchange) => exchange.method === 'GET' && resourceOf(exchange, input.token) === 'attributes',
  );
  const violations = judged.flatMap((exchange) => {
    const query = new URLSearchParams(exchange.url.slice(pathOf(exchange).length));
    const unknown = [...new Set(query.keys())].filter(
      (name) => !ATTRIBUTE_REQUEST_PARAMETERS.has(name),
    );
    if (unknown.length)
      return [
        {
          item: exchange,
          reason: `GET attributes names keys in ${unknown.join(', ')}, which the API does not read (clientKeys, sharedKeys): the answer holds every attribute`,
        },
      ];
    const literal = [...ATTRIBUTE_REQUEST_PARAMETERS].find((name) =>
      query.getAll(name).some(notKeyNames),
    );
    return literal
      ? [
          {
            item: exchange,
            reason: `GET attributes ${literal}=${query.get(literal)}: the keys are not comma-separated names (a JSON literal), so the platform reads keys that do not exist; it answered ${exchange.responseBody.slice(0, 80) || '(nothing)'}`,
          },
        ]
      : [];
  });
  // the shared-attribute step asks the client to read the attribute this way: provoked, so NOT
  // TESTED when undone
  return outcome(judged, violations, 'the client sent no attribute request (GET attributes)');
};

/**
 * The body of a request against a schema: no violation, or one naming what is wrong (`what`: the
 * request).
 */
function bodyViolations(exchange: ObservedExchange, schema: object, what: string): Violation[] {
  const body = parsed(exchange);
  if (!body.ok) return [{ item: exchange, reason: `${what}: the body is not JSON` }];
  const check = validate(schema, body.value);
  return check.ok
    ? []
    : [{ item: exchange, reason: `${what}: ${check.errors.slice(0, 3).join('; ')}` }];
}

/**
 * HTTP-DEV-08: the body of POST claim is an object with an optional secretKey (string) and an
 * optional durationMs (integer milliseconds), docs/reference/interfaces.md "Claim payload". The
 * certification never asks for a claim: NOT APPLICABLE when the client sent none.
 */
const claimPayload: DeviceCheck = (input) => {
  const judged = posts(input, /^claim$/);
  return optionalOutcome(
    judged,
    judged.flatMap((exchange) => bodyViolations(exchange, claimSchema, 'POST claim')),
    'the client never claimed (POST claim)',
  );
};

/**
 * HTTP-DEV-09: POST /api/v1/provision carries deviceName, provisionDeviceKey and
 * provisionDeviceSecret as strings (docs/reference/interfaces.md "Provisioning payload"); it has no
 * token in the path (any other path is HTTP-DEV-01's). Judged by its shape: the certification has
 * no provisioning key to hand out, so the answer is not the point.
 */
const provisionPayload: DeviceCheck = (input) => {
  const judged = input.exchanges.filter(
    (exchange) => exchange.method === 'POST' && pathOf(exchange) === '/api/v1/provision',
  );
  return optionalOutcome(
    judged,
    judged.flatMap((exchange) =>
      bodyViolations(exchange, provisionRequestSchema, 'POST /api/v1/provision'),
    ),
    'the client never provisioned itself (POST /api/v1/provision)',
  );
};

/** The query of a request as an object of its first values. */
function queryOf(exchange: ObservedExchange): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(exchange.url.slice(pathOf(exchange).length)));
}

/** HTTP-DEV-10: GET firmware names the firmware in the query parameters title and version. */
const firmwareQuery: DeviceCheck = (input) => {
  const judged = input.exchanges.filter(
    (exchange) => exchange.method === 'GET' && resourceOf(exchange, input.token) === 'firmware',
  );
  const violations = judged.flatMap((exchange) => {
    const check = validate(firmwareQuerySchema, queryOf(exchange));
    return check.ok
      ? []
      : [
          {
            item: exchange,
            reason: `GET firmware${exchange.url.slice(pathOf(exchange).length)}: ${check.errors.slice(0, 3).join('; ')} (title and version name the firmware)`,
          },
        ];
  });
  return optionalOutcome(judged, violations, 'the client never asked for firmware (GET firmware)');
};

/**
 * HTTP-DEV-11: the body of an RPC reply (POST rpc/{id}) is a JSON document
 * (docs/reference/interfaces.md "RPC request": the reply is a JSON document, its content specific
 * to the device). Judged on every reply, whatever its id (the id is HTTP-DEV-05's).
 */
const replyBody: DeviceCheck = (input) => {
  const all = replies(input);
  return outcome(
    all.map((reply) => reply.exchange),
    all
      .filter(({ exchange }) => !parsed(exchange).ok)
      .map(({ exchange, id }) => ({
        item: exchange,
        reason: `the reply to RPC ${id} is not a JSON document: ${JSON.stringify(exchange.requestBody.slice(0, 80))}`,
      })),
    'the client posted no RPC reply',
  );
};

/** HTTP-DEV-12: the body of a client-side RPC (POST rpc) is a JSON document. */
const clientRpcBody: DeviceCheck = (input) => {
  const judged = posts(input, /^rpc$/);
  return optionalOutcome(
    judged,
    judged
      .filter((exchange) => !parsed(exchange).ok)
      .map((exchange) => ({
        item: exchange,
        reason: `the client-side RPC is not a JSON document: ${JSON.stringify(exchange.requestBody.slice(0, 80))}`,
      })),
    'the client sent no client-side RPC (POST rpc)',
  );
};

/**
 * HTTP-DEV-13: the timeout of a long-poll (GET attributes/updates, GET rpc), when given, is an
 * integer (docs/reference/interfaces.md: "timeout (optional, integer)"; a number of milliseconds on
 * ThingsBoard, docs/reference/platform-facts.md §3). Only the polls that give one are judged: a
 * client that never gives a timeout is NOT APPLICABLE.
 */
const longPollTimeout: DeviceCheck = (input) => {
  const judged = input.exchanges.filter(
    (exchange) =>
      exchange.method === 'GET' &&
      ['attributes/updates', 'rpc'].includes(resourceOf(exchange, input.token) ?? '') &&
      new URLSearchParams(exchange.url.slice(pathOf(exchange).length)).has('timeout'),
  );
  const violations = judged.flatMap((exchange) =>
    validate(longPollQuerySchema, { timeout: queryOf(exchange).timeout }).ok
      ? []
      : [
          {
            item: exchange,
            reason: `GET ${resourceOf(exchange, input.token)} timeout=${queryOf(exchange).timeout}: not an integer`,
          },
        ],
  );
  return optionalOutcome(
    judged,
    violations,
    'the client gave no long-poll a timeout (GET attributes/updates or rpc?timeout=)',
  );
};

/** The checks by requirement id, in catalogue order. */
export const HTTP_DEVICE_CHECKS: ReadonlyMap<string, DeviceCheck> = new Map([
  ['HTTP-DEV-01', urlForm],
  ['HTTP-DEV-02', contentType],
  ['HTTP-DEV-03', payloadShapes],
  ['HTTP-DEV-04', milliseconds],
  ['HTTP-DEV-05', replyId],
  ['HTTP-DEV-06', replyInTime],
  ['HTTP-DEV-07', attributeRequestKeys],
  ['HTTP-DEV-08', claimPayload],
  ['HTTP-DEV-09', provisionPayload],
  ['HTTP-DEV-10', firmwareQuery],
  ['HTTP-DEV-11', replyBody],
  ['HTTP-DEV-12', clientRpcBody],
  ['HTTP-DEV-13', longPollTimeout],
]);
