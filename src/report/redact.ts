/**
 * Secret redaction for everything a run writes (reports, logs, evidence). Two layers:
 * - known secrets: values the run knows are secret (passwords of the profile, tokens it minted), blanked where they
 *   stand whole, never inside a longer word (a password `customer` must not turn customerId into <redacted>Id),
 *   whatever their length;
 * - shapes: anything that looks like a secret wherever it appears (JWTs, API keys, device tokens in /api/v1 paths,
 *   Authorization headers, and JSON fields named for credentials; never generic names such as `value`).
 */
const JWT = /eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}/g;
const API_KEY = /\btb_[A-Za-z0-9_-]{8,}/g;
// A token ends where a URL or its surroundings do; \ < > & never belong to it, so redacting JSON text or HTML never
// eats an escape or markup (and a report built from redacted text stays well-formed). "..." is prose, not a token.
const DEVICE_TOKEN_IN_PATH = /(\/api\/v1\/)(?!provision\b|\{token\}|\.\.\.)[^/?#\s"'\\<>&]+/g;
const AUTH_HEADER =
  /((?:X-)?Authorization["']?\s*[:=]\s*["']?(?:Bearer|ApiKey|Basic)\s+)[^\s"',}\\<>&]+/gi;
const SECRET_FIELD =
  /("(?:password|token|refreshToken|accessToken|credentialsId|credentialsValue|provisionDeviceSecret|secretKey)"\s*:\s*)"[^"]*"/g;
/** Characters a secret can continue with: an occurrence next to one of them is part of a longer word. */
const WORD = 'A-Za-z0-9_\\-';

export const REDACTED = '<redacted>';

export class Redactor {
  private readonly known = new Set<string>();
  private knownPattern: RegExp | undefined;

  /** Registers a value that must never appear in output, of any length; it is matched whole. */
  addSecret(secret: string | undefined): void {
    if (!secret || this.known.has(secret)) return;
    this.known.add(secret);
    // longest first, so a secret that contains another is blanked whole
    const alternatives = [...this.known]
      .sort((a, b) => b.length - a.length)
      .map((known) => known.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    this.knownPattern = new RegExp(`(?<![${WORD}])(?:${alternatives.join('|')})(?![${WORD}])`, 'g');
  }

  redact(text: string): string {
    const out = this.knownPattern ? text.replace(this.knownPattern, REDACTED) : text;
    return out
      .replace(JWT, REDACTED)
      .replace(API_KEY, REDACTED)
      .replace(AUTH_HEADER, `$1${REDACTED}`)
      .replace(DEVICE_TOKEN_IN_PATH, `$1${REDACTED}`);
  }

  /** Like redact, and also blanks secret-named JSON fields (for evidence bodies, not for whole reports). */
  redactEvidence(text: string): string {
    return this.redact(text).replace(SECRET_FIELD, `$1"${REDACTED}"`);
  }
}
