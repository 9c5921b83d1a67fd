/**
 * Failures of the administration REST API client. Messages never carry a credential (token,
 * password, key).
 */
import { Redactor } from '../report/redact';
import { IotcError } from '../../lib/errors';

const shapes = new Redactor();

/**
 * A path, message or body with query secrets, secret-shaped strings (JWTs, API keys, device tokens)
 * and secret-named JSON members (token, password, credentialsValue, ...) blanked.
 */
export function redactForMessage(text: string): string {
  return shapes.redactEvidence(text); // query parameters by the same names (secret-fields.ts)
}

/**
 * An answer of the admin REST API that is not a success: HTTP status, ThingsBoard errorCode and
 * server message.
 */
export class AdminApiError extends IotcError {
  readonly code = 'IOTC_ADMIN_API';
  readonly path: string;
  readonly serverMessage: string;

  constructor(
    readonly method: string,
    path: string,
    readonly status: number,
    readonly errorCode: number | undefined,
    serverMessage: string,
  ) {
    const safePath = redactForMessage(path);
    const safeMessage = redactForMessage(serverMessage);
    super(
      `${method} ${safePath} answered ${status}${errorCode === undefined ? '' : ` (errorCode ${errorCode})`}: ${safeMessage || '(empty body)'}`,
    );
    this.path = safePath;
    this.serverMessage = safeMessage;
  }
}

/** The admin API answered a success whose body is not the documented shape. */
export class AdminResponseShapeError extends IotcError {
  readonly code = 'IOTC_ADMIN_RESPONSE_SHAPE';

  constructor(what: string, text: string) {
    super(`${what}: unexpected answer ${redactForMessage(text.slice(0, 300)) || '(empty body)'}`);
  }
}
