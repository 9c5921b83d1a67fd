/**
 * Secret redaction for everything a run writes (reports, logs, evidence). Two layers:
 * - known secrets: values the run knows are secret (passwords and usernames of the profile, tokens it minted);
 * - shapes: anything that looks like a secret wherever it appears (JWTs, API keys, device tokens in /api/v1 paths,
 *   Authorization headers, password/token fields in JSON).
 */
const JWT = /eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}/g;
const API_KEY = /\btb_[A-Za-z0-9_-]{8,}/g;
// A token ends where a URL or its surroundings do; \ < > & never belong to it, so redacting JSON text or HTML never
// eats an escape or markup (and a report built from redacted text stays well-formed). "..." is prose, not a token.
const DEVICE_TOKEN_IN_PATH = /(\/api\/v1\/)(?!provision\b|\{token\}|\.\.\.)[^/?#\s"'\\<>&]+/g;
const AUTH_HEADER =
  /((?:X-)?Authorization["']?\s*[:=]\s*["']?(?:Bearer|ApiKey|Basic)\s+)[^\s"',}\\<>&]+/gi;
const SECRET_FIELD =
  /("(?:password|token|refreshToken|accessToken|credentialsId|credentialsValue|provisionDeviceSecret|secretKey|value)"\s*:\s*)"[^"]*"/g;

export const REDACTED = '<redacted>';

export class Redactor {
  private readonly known = new Set<string>();

  /** Registers a value that must never appear in output (ignored when too short to be meaningful). */
  addSecret(secret: string | undefined): void {
    if (secret && secret.length >= 4) this.known.add(secret);
  }

  redact(text: string): string {
    let out = text;
    for (const secret of this.known) out = out.split(secret).join(REDACTED);
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
