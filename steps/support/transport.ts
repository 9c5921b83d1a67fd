/**
 * Transport errors: the path to the target failed, so the target gave no answer. An HTTP status or
 * an MQTT reason code is an answer of the target and can FAIL a requirement; a socket error is not
 * an answer and never does. A step that fails through one is reported INCONCLUSIVE (after one retry
 * of its scenario on fresh connections, steps/hooks.ts); a step that expects the target to close or
 * reset catches that error itself, so it never reaches this test. In a @robustness scenario a
 * socket error is the target's answer (it was abused meanwhile: a reset or a refused connect of the
 * well-behaved client is the target failing it), so there it stays an error and can FAIL.
 */
import { Inconclusive } from './timing';
import { scenarioState } from './scenario-scope';

/**
 * The opening of an INCONCLUSIVE message for a transport error (src/report/verdicts.ts names the
 * cause by it).
 */
export const NETWORK_FAILED = 'the network failed';

/**
 * Codes of errors that are the network's, not the target's: the system's socket errors (connect
 * refused, reset, broken pipe, a connect that timed out, unreachable), undici's (a socket closed
 * under a request, a connect that timed out) and TLS handshake failures. Not among them: a request
 * that got no answer in time once the connection stood (a target that hangs is an answer), an MQTT
 * connection closed before its CONNACK (no socket error: the target ended it).
 */
const TRANSPORT_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'EPROTO',
]);

/** TLS failures: Node's ERR_TLS_* and OpenSSL's certificate verification codes. */
const TLS_CODE =
  /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT)/;

/**
 * The transport error somewhere in `error`'s cause chain (or among an AggregateError's errors),
 * named by its code and message; undefined when the error is anything else.
 */
export function transportFailure(error: unknown, depth = 0): string | undefined {
  if (depth > 8 || typeof error !== 'object' || error === null) return undefined;
  const { code, message, cause, errors } = error as {
    code?: unknown;
    message?: unknown;
    cause?: unknown;
    errors?: unknown;
  };
  if (typeof code === 'string' && (TRANSPORT_CODES.has(code) || TLS_CODE.test(code)))
    return typeof message === 'string' && message && !message.includes(code)
      ? `${code} (${message})`
      : typeof message === 'string' && message
        ? message
        : code;
  if (Array.isArray(errors))
    for (const inner of errors) {
      const found = transportFailure(inner, depth + 1);
      if (found) return found;
    }
  return transportFailure(cause, depth + 1);
}

/**
 * The Inconclusive a transport error becomes: what failed, while doing what, and the original
 * message.
 */
export function networkInconclusive(error: unknown, doing: string): Inconclusive | undefined {
  const failure = transportFailure(error);
  if (!failure) return undefined;
  return new Inconclusive(`${NETWORK_FAILED} (${failure}) while ${doing}`, { cause: error });
}

/**
 * Socket errors of the running scenario's MQTT connections (simulators/device/mqtt-connection.ts
 * tells them): a connection the network reset closes without an MQTT answer, and a step that waited
 * on it (an update that never came, a publish on a closed connection) fails for the network's sake,
 * not the target's. steps/hooks.ts clears the list before each scenario and reads it when a step
 * fails.
 */
const BROKEN = Symbol("iotc: socket errors of the scenario's MQTT connections");
/** The running scenario's list (scenario-scope.ts: a worker may run several at once). */
const brokenConnections = () => scenarioState(BROKEN, (): string[] => []);

/** Notes a socket error of an MQTT connection of the running scenario. */
export function noteBrokenConnection(error: Error & { code: string }): void {
  const failure = transportFailure(error);
  if (failure) brokenConnections()?.push(failure);
}

/** Forgets the socket errors noted so far (a scenario starts). */
export function clearBrokenConnections(): void {
  const noted = brokenConnections();
  if (noted) noted.length = 0;
}

/**
 * The Inconclusive a step's failure becomes when the network broke one of the scenario's MQTT
 * connections before it: the step's own error stays in the message (and as the cause), after the
 * transport error that explains it.
 */
export function brokenConnectionInconclusive(
  error: unknown,
  doing: string,
): Inconclusive | undefined {
  const broken = brokenConnections() ?? [];
  if (!broken.length || error instanceof Inconclusive) return undefined;
  const message = error instanceof Error ? error.message : String(error);
  return new Inconclusive(
    `${NETWORK_FAILED} (${broken[0]} on an MQTT connection of the scenario${broken.length > 1 ? `, ${broken.length} in all` : ''}) while ${doing}; the step then failed with: ${message.split('\n')[0]}`,
    { cause: error },
  );
}
