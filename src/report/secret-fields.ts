/**
 * The ONE list of JSON member names whose values are credentials (issue 26 item 6): the scenario
 * world blanks them in what it records as evidence, the report's redactor blanks them in what it
 * writes, and the admin client blanks them in its error messages. A name missing here leaks its
 * value everywhere at once, so add names here, nowhere else.
 */
export const SECRET_FIELD_NAMES = [
  // administration users
  'password',
  'currentPassword',
  'newPassword',
  // administration tokens
  'token',
  'accessToken',
  'refreshToken',
  // device credentials (an access token, an X.509 certificate, MQTT basic credentials)
  'credentialsId',
  'credentialsValue',
  // provisioning (device profile and request) and its answer
  'provisionDeviceKey',
  'provisionDeviceSecret',
  // claiming (the device's claim and the customer's request)
  'secretKey',
] as const;

const NAMES = SECRET_FIELD_NAMES.join('|');

/** `"name": "value"` for a secret name; group 1 is everything before the value's opening quote. */
const PLAIN = new RegExp(`("(?:${NAMES})"\\s*:\\s*)"(?:[^"\\\\]|\\\\.)*"`, 'g');
/**
 * The same inside a JSON string (a body recorded as text, then serialized again): `\"name\":
 * \"value\"`.
 */
const ESCAPED = new RegExp(
  `(\\\\"(?:${NAMES})\\\\"\\s*:\\s*)\\\\"(?:[^"\\\\]|\\\\[^"])*\\\\"`,
  'g',
);
/** `name=value` in a query string or form body. */
const QUERY = new RegExp(`([?&](?:${NAMES}|apiKey)=)[^&#\\s"'<>]*`, 'gi');

/** Blanks the values of secret-named JSON members (plain or escaped once) and query parameters. */
export function redactSecretFields(text: string, replacement: string): string {
  return text
    .replace(PLAIN, `$1"${replacement}"`)
    .replace(ESCAPED, `$1\\"${replacement}\\"`)
    .replace(QUERY, `$1${replacement}`);
}
