/**
 * Secret redaction for everything a run writes (reports, logs, evidence). Two layers:
 * - known secrets: values the run knows are secret (passwords of the profile, tokens it minted),
 *   blanked where they stand whole, never inside a longer word (a password `customer` must not turn
 *   customerId into <redacted>Id); only values strong enough to be told from prose
 *   (looksLikeSecret): the demo password "tenant" blanked by value turned every
 *   `/api/tenant/devices` of a report into `/api/<redacted>/devices` (issue 26 item 6). A weak
 *   value is still blanked where it is carried: by its field name, in an Authorization header, in a
 *   device path;
 * - shapes: anything that looks like a secret wherever it appears (JWTs, API keys, device tokens in
 *   /api/v1 paths, Authorization headers, and JSON fields named for credentials, secret-fields.ts;
 *   never generic names such as `value`).
 */
import { redactSecretFields } from './secret-fields';

const JWT = /eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}/g;
const API_KEY = /\btb_[A-Za-z0-9_-]{8,}/g;
// A token ends where a URL or its surroundings do; \ < > & never belong to it, so redacting JSON
// text or HTML never eats an escape or markup (and a report built from redacted text stays
// well-formed). "..." is prose, not a token. A placeholder of a statement
// (`/api/v1/{access_token}/telemetry`) is not a token either.
const DEVICE_TOKEN_IN_PATH = /(\/api\/v1\/)(?!provision\b|\{[\w-]*\}|\.\.\.)[^/?#\s"'\\<>&]+/g;
const AUTH_HEADER =
  /((?:X-)?Authorization["']?\s*[:=]\s*["']?(?:Bearer|ApiKey|Basic)\s+)[^\s"',}\\<>&]+/gi;
/**
 * Characters a secret can continue with: an occurrence next to one of them is part of a longer
 * word.
 */
const WORD = 'A-Za-z0-9_\\-';

export const REDACTED = '<redacted>';

export class Redactor {
  private readonly known = new Set<string>();
  private knownPattern: RegExp | undefined;

  /**
   * Registers a value that must never appear in output; it is matched whole. A value that does not
   * look like a secret (an ordinary word: the demo passwords "tenant", "customer") is not
   * registered: blanking it wherever the word appears would blank paths, user names and statements,
   * and it is still blanked where it is carried (by field name, in headers). Returns whether the
   * value is blanked by value.
   */
  addSecret(secret: string | undefined): boolean {
    if (!secret || !looksLikeSecret(secret)) return false;
    if (this.known.has(secret)) return true;
    this.known.add(secret);
    // longest first, so a secret that contains another is blanked whole
    const alternatives = [...this.known]
      .sort((a, b) => b.length - a.length)
      .map((known) => known.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    this.knownPattern = new RegExp(`(?<![${WORD}])(?:${alternatives.join('|')})(?![${WORD}])`, 'g');
    return true;
  }

  redact(text: string): string {
    const out = this.knownPattern ? text.replace(this.knownPattern, REDACTED) : text;
    return out
      .replace(JWT, REDACTED)
      .replace(API_KEY, REDACTED)
      .replace(AUTH_HEADER, `$1${REDACTED}`)
      .replace(DEVICE_TOKEN_IN_PATH, `$1${REDACTED}`);
  }

  /**
   * Like redact, and also blanks secret-named JSON fields (for evidence bodies, not for whole
   * reports).
   */
  redactEvidence(text: string): string {
    return redactSecretFields(this.redact(text), REDACTED);
  }
}

/** Shortest value blanked by value whatever it is made of. */
const STRONG_SECRET_LENGTH = 12;

/**
 * Whether a value is told apart from prose well enough to be blanked wherever it stands: 12
 * characters or more, or anything but a plain word of letters (a digit, a symbol, mixed case
 * inside: `s3cret`, `pw7`, `A1_TOKEN`).
 */
export function looksLikeSecret(value: string): boolean {
  if (value.length >= STRONG_SECRET_LENGTH) return true;
  return !/^(?:[a-z]+|[A-Z][a-z]+|[A-Z]+)$/.test(value);
}
