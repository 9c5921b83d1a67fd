/**
 * The planted faults of the HTTP device API (faults/catalogue/http-device-api.ts, robustness.ts and
 * faults/catalogue/ say what each breaks), as data: per route, each fault names the steps it wraps
 * or replaces (faults/steps.ts); index.ts registers a route's table at its entry of the route
 * table, and context.ts `served` applies the shared table and the route's table per request. The
 * endpoints' modules hold only behaviour.
 */
import { isUtf8 } from 'node:buffer';
import { typedValueToString } from '../../../lib/kv/values';
import type { StepFaults, StepWrappers } from '../../../faults/steps';
import { BadRequestError, PlatformError } from '../core/errors';
import type { Device } from '../core/model';
import { telemetryEntries } from '../core/payloads';
import { pickAttributes, setMember } from '../core/render';
import { randomToken } from '../core/tokens';
import type { ProvisionRequest } from '../core/provisioning';
import type { DeviceApiSteps, DeviceExchange, EndpointSteps } from './context';
import { sendEmpty, sendError, sendJson, sendText } from './exchange';
import { DEFAULT_LONG_POLL_MS, heldLongPolls } from './long-poll';
import type { GET_ATTRIBUTE_UPDATES } from './attribute-updates';
import type { GET_ATTRIBUTES, POST_ATTRIBUTES } from './attributes';
import type { GET_FIRMWARE } from './firmware';
import type { POST_PROVISION } from './provision';
import type { GET_RPC, POST_CLIENT_RPC, POST_RPC_REPLY } from './rpc';
import type { POST_TELEMETRY } from './telemetry';

/** Telemetry `[]`: the array form with no element. */
const EMPTY_ARRAY = /^\s*\[\s*\]\s*$/;

/** Refuses the request with `status` and an empty body, unread. */
const refuse = ({ request, response }: DeviceExchange, status: number): false => {
  request.resume();
  sendEmpty(response, status);
  return false;
};

/**
 * The faults of every route of the device API: they wrap the shared steps (context.ts
 * DEVICE_API_STEPS).
 */
export const DEVICE_API_FAULTS: StepFaults<DeviceApiSteps> = {
  'ROB-POLL-01:busy-while-polls-held': {
    admit: (step) => (exchange) =>
      heldLongPolls() >= 100 ? refuse(exchange, 503) : step(exchange),
  },
  'HTTP-AUTH-01:token-case-folded': {
    // a token that differs from a device's only in case is taken as that device's
    deviceOf: (step) => (api, token) => {
      const device = step(api, token);
      if (device) return device;
      const folded = token.toLowerCase();
      for (const candidate of api.core.devices.values())
        if (candidate.token.toLowerCase() === folded) return candidate;
      return undefined;
    },
  },
  'HTTP-ERR-04:unknown-token-403': {
    unknownToken: () => (exchange) => sendEmpty(exchange.response, 403),
  },
  'HTTP-ERR-04:long-poll-unknown-token-waits': {
    unknownToken: (step) => (exchange, longPollMs) => {
      if (longPollMs === undefined) return step(exchange, longPollMs);
      const timer = setTimeout(() => sendEmpty(exchange.response, 408), longPollMs);
      exchange.response.on('close', () => clearTimeout(timer));
    },
  },
  'HTTP-ERR-02:invalid-parameter-500': {
    invalidParameter: () => (message) => new PlatformError(message, 500, 2),
  },
  'HTTP-ERR-02:negative-timeout-accepted': {
    pollQuery: (step) => (request) => {
      const query = step(request);
      if (/^-\d+$/.test(query.timeout ?? '')) query.timeout = '0';
      return query;
    },
  },
  'HTTP-ERR-01:malformed-json-500': {
    failed: (step) => (exchange, error) => {
      if (!(error instanceof BadRequestError && error.message.includes('malformed JSON')))
        return step(exchange, error);
      exchange.request.resume();
      sendError(exchange.response, new PlatformError(error.message, 500, 2));
    },
  },
};

/**
 * The timeout faults of a long-poll route: the timeout ignored (60 s), cut to a quarter, or a body
 * at 408.
 */
type PollSteps = Pick<DeviceApiSteps, 'pollWaitMs' | 'pollTimedOut' | 'pollDefaultMs'>;
const timeoutIgnored: StepWrappers<PollSteps> = { pollWaitMs: () => () => DEFAULT_LONG_POLL_MS };
const earlyTimeout: StepWrappers<PollSteps> = { pollWaitMs: (step) => (ms) => step(ms) / 4 };
const timeoutWithBody: StepWrappers<PollSteps> = {
  pollTimedOut: () => (response) => sendJson(response, 408, { error: 'timeout' }),
};
/** A poll without the optional timeout parameter ends at once (408), the default not applied. */
const defaultNotApplied: StepWrappers<PollSteps> = { pollDefaultMs: () => () => 0 };

export const POST_TELEMETRY_FAULTS: StepFaults<EndpointSteps<typeof POST_TELEMETRY>> = {
  'ROB-UTF8-01:latin1-decoding': { text: () => (body) => body.toString('latin1') },
  // a body that is not UTF-8 is answered 200 and stores nothing (`[]`: no entry)
  'ROB-UTF8-01:accepted-not-stored': {
    text: (step) => (body) => (isUtf8(body) ? step(body) : '[]'),
  },
  'HTTP-TEL-02-EMPTY:empty-array-refused': {
    text: (step) => (body) => {
      if (EMPTY_ARRAY.test(`${body}`)) throw new BadRequestError('telemetry holds no entry');
      return step(body);
    },
  },
  'HTTP-ERR-01:valid-elements-stored': {
    refused: (step) => (response, api, error, refusal) => {
      storeValidElements(refusal.body, (records) =>
        api.core.saveTelemetry(refusal.device, records),
      );
      step(response, api, error, refusal);
    },
  },
};

/** The valid elements of a refused telemetry array, stored one by one. */
function storeValidElements(
  body: Buffer,
  save: (records: ReturnType<typeof telemetryEntries>) => void,
): void {
  let document: unknown;
  try {
    document = JSON.parse(body.toString('utf8'));
  } catch {
    return;
  }
  if (!Array.isArray(document)) return;
  for (const element of document) {
    try {
      save(telemetryEntries(JSON.stringify(element), Date.now()));
    } catch {
      // an invalid element is skipped
    }
  }
}

export const POST_ATTRIBUTES_FAULTS: StepFaults<EndpointSteps<typeof POST_ATTRIBUTES>> = {
  'HTTP-ATTR-01:json-values-dropped': {
    kept: (step) => (device, entries) =>
      step(
        device,
        entries.filter(([, value]) => value.type !== 'JSON'),
      ),
  },
  'HTTP-ATTR-02:first-write-wins': {
    kept: (step) => (device, entries) =>
      step(
        device,
        entries.filter(([key]) => !device.attributes.CLIENT_SCOPE.has(key)),
      ),
  },
  'HTTP-ATTR-01:not-stored': { save: () => () => undefined },
};

/** Sets or removes a member of an attribute answer. */
function withMember(
  answer: Record<string, unknown>,
  member: string,
  value: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const changed = { ...answer };
  if (value) changed[member] = value;
  else delete changed[member];
  return changed;
}

export const GET_ATTRIBUTES_FAULTS: StepFaults<EndpointSteps<typeof GET_ATTRIBUTES>> = {
  'HTTP-ATTR-03:client-keys-ignored': {
    answer: (step) => (device, asked) => {
      const answer = step(device, asked);
      if (!asked.clientKeys) return answer;
      return withMember(answer, 'client', pickAttributes(device, 'CLIENT_SCOPE', undefined));
    },
  },
  'HTTP-ATTR-04:shared-keys-ignored': {
    answer: (step) => (device, asked) => {
      const answer = step(device, asked);
      if (!asked.sharedKeys) return answer;
      return withMember(answer, 'shared', pickAttributes(device, 'SHARED_SCOPE', undefined));
    },
  },
  'HTTP-ATTR-04:shared-read-from-server-scope': {
    answer: (step) => (device, asked) => {
      const answer = step(device, asked);
      if (!asked.sharedKeys) return answer;
      return withMember(answer, 'shared', pickAttributes(device, 'SERVER_SCOPE', asked.sharedKeys));
    },
  },
  'HTTP-ATTR-03:client-member-flattened': {
    answer: (step) => (device, asked) => {
      const { client, ...answer } = step(device, asked);
      if (!client) return answer;
      for (const [key, value] of Object.entries(client as Record<string, unknown>))
        setMember(answer, key, value);
      return answer;
    },
  },
};

/** Fault HTTP-UPD-01:answered-twice: the last change each device's poll was answered with. */
const lastAnswered = new WeakMap<Device, string>();

export const GET_ATTRIBUTE_UPDATES_FAULTS: StepFaults<EndpointSteps<typeof GET_ATTRIBUTE_UPDATES>> =
  {
    'HTTP-UPD-02:timeout-ignored': timeoutIgnored,
    'HTTP-UPD-02:early-timeout': earlyTimeout,
    'HTTP-UPD-02:timeout-with-body': timeoutWithBody,
    'HTTP-UPD-01:no-timeout-ends-at-once': defaultNotApplied,
    'HTTP-UPD-01:answered-twice': {
      earlier: () => (device) => lastAnswered.get(device),
      render: (step) => (device, change) => {
        const body = step(device, change);
        lastAnswered.set(device, body);
        return body;
      },
    },
    'HTTP-UPD-01:update-not-delivered': { subscribe: () => () => () => undefined },
    'HTTP-UPD-01:unchanged-keys-included': {
      change: (step) => (device, change) =>
        step(device, {
          ...change,
          updated: new Map([...device.attributes.SHARED_SCOPE, ...change.updated]),
        }),
    },
    'HTTP-UPD-01:values-as-strings': {
      change: (step) => (device, change) => {
        const faulty = step(device, change);
        const updated = new Map(
          [...faulty.updated].map(([key, attribute]) => [
            key,
            {
              ...attribute,
              value: { type: 'STRING' as const, value: typedValueToString(attribute.value) },
            },
          ]),
        );
        return { ...faulty, updated };
      },
    },
  };

export const GET_RPC_FAULTS: StepFaults<EndpointSteps<typeof GET_RPC>> = {
  'HTTP-RPC-02:timeout-ignored': timeoutIgnored,
  'HTTP-RPC-02:early-timeout': earlyTimeout,
  'HTTP-RPC-02:timeout-with-body': timeoutWithBody,
  'HTTP-RPC-01:no-timeout-ends-at-once': defaultNotApplied,
  'HTTP-RPC-01:queued-not-delivered': { deliverQueued: () => () => false },
  'HTTP-RPC-01:params-dropped': {
    request: (step) => (rpc) => {
      const { params: _dropped, ...request } = step(rpc);
      return request;
    },
  },
  'HTTP-RPC-01:id-as-string': {
    request: (step) => (rpc) => ({ ...step(rpc), id: String(rpc.id) }),
  },
};

/** The RPC body limit's faults: one byte less than 64 KiB, or none at all. */
const RPC_BODY_FAULTS = {
  'ROB-SIZE-01:rpc-limit-exclusive': { rpcBodyLimit: (step: () => number) => () => step() - 1 },
  'ROB-SIZE-01:rpc-size-unchecked': {
    rpcBodyLimit: () => () => Number.POSITIVE_INFINITY,
  },
} as const;

export const POST_RPC_REPLY_FAULTS: StepFaults<EndpointSteps<typeof POST_RPC_REPLY>> = {
  ...RPC_BODY_FAULTS,
  'HTTP-ERR-03:non-integer-rpc-id-accepted': { validId: () => () => true },
  'HTTP-RPC-03:reply-ignored': { reply: () => () => undefined },
  'HTTP-RPC-03:reply-retyped': {
    reply: (step) => (core, device, id, _text, reply) =>
      step(core, device, id, JSON.stringify(reply), reply),
  },
};

export const POST_CLIENT_RPC_FAULTS: StepFaults<EndpointSteps<typeof POST_CLIENT_RPC>> = {
  ...RPC_BODY_FAULTS,
  'HTTP-RPC-04:text-answer': {
    answer: () => (response) => sendText(response, 200, 'OK: answered'),
  },
  'HTTP-RPC-04:empty-answer': { answer: () => (response) => sendEmpty(response, 200) },
};

/**
 * A missing required field filled in (a made-up name, an empty key or secret, which find no
 * profile).
 */
const filled =
  (field: keyof ProvisionRequest, value: () => string) =>
  (step: (text: string) => string) =>
  (text: string): string => {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return step(text);
    }
    if (!body || typeof body !== 'object' || Array.isArray(body) || field in body)
      return step(text);
    return step(JSON.stringify({ ...body, [field]: value() }));
  };

export const POST_PROVISION_FAULTS: StepFaults<EndpointSteps<typeof POST_PROVISION>> = {
  'HTTP-PROV-04:token-required': { admit: () => (exchange) => refuse(exchange, 401) },
  'HTTP-PROV-05:device-name-optional': { text: filled('deviceName', randomToken) },
  'HTTP-PROV-05:key-optional': { text: filled('provisionDeviceKey', () => '') },
  'HTTP-PROV-05:secret-optional': { text: filled('provisionDeviceSecret', () => '') },
};

export const GET_FIRMWARE_FAULTS: StepFaults<EndpointSteps<typeof GET_FIRMWARE>> = {
  'HTTP-ERR-05:no-package-empty-200': { noPackageStatus: () => () => 200 },
  'HTTP-FW-01:chunks-off-by-one': {
    chunk: (step) => (data, size, chunk) => step(data, size, chunk + 1),
  },
  'HTTP-FW-01:last-byte-missing': {
    packageData: (step) => (data) => step(data).subarray(0, data.length - 1),
  },
};
