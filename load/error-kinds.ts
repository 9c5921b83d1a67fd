/**
 * How load profiles name what was not a success, for the recorder's errors by kind: an HTTP answer
 * by its status and the start of its body (a platform's own words for a throttle), a request
 * without answer by its error code.
 */

/**
 * Bodies are cut to this many characters in an error kind: enough for a platform's reason, not a
 * whole page.
 */
const BODY_IN_KIND = 80;

/**
 * The kind of an answer that is not a success: its status and the start of its body, whitespace
 * folded.
 */
export function errorKindOf(status: number, body: string): string {
  const text = body.replace(/\s+/g, ' ').trim();
  const cut = text.length > BODY_IN_KIND ? `${text.slice(0, BODY_IN_KIND)}…` : text;
  return cut ? `HTTP ${status} ${cut}` : `HTTP ${status}`;
}

/**
 * The kind of a request that got no answer: `network <code>` (ECONNRESET, UND_ERR_HEADERS_TIMEOUT,
 * ...).
 */
export function networkKindOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return `network ${typeof code === 'string' ? code : error instanceof Error ? error.name : 'error'}`;
}
