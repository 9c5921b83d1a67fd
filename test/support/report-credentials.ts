/**
 * Credentials in a run's report files (issue 26 item 6): what a report must never show, searched
 * for by shape, so that the check needs no list of the run's own tokens (the platform makes them at
 * random). The files are those a run writes for people and machines to read: conformance.json and
 * its page, junit.xml, and what the run added to cucumber.json (attachments, error messages; the
 * feature source it repeats is public, and is where the allowed words below come from).
 * cucumber.html carries the same attachments as cucumber.json.
 *
 * Shapes: a JWT; a device access token in a device API path (`/api/v1/<token>/...`); an `ApiKey
 * <value>` header; a member named as a secret (src/report/secret-fields.ts) whose value is not
 * blanked. A token the features write themselves (a wrong one, to be refused) is public and
 * allowed.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { SECRET_FIELD_NAMES } from '../../src/report/secret-fields';

const ROOT = join(__dirname, '..', '..');

/** cucumber.json without the feature source: what the run added (attachments, error messages). */
export function runOutputOf(cucumberJson: string): string {
  const features = JSON.parse(cucumberJson) as Array<{
    elements: Array<{
      steps: Array<{
        embeddings?: Array<{ data: string; mime_type: string }>;
        result?: { error_message?: string };
      }>;
    }>;
  }>;
  const out: string[] = [];
  for (const feature of features)
    for (const element of feature.elements)
      for (const step of element.steps) {
        for (const embedding of step.embeddings ?? [])
          out.push(
            embedding.mime_type.startsWith('text/') || embedding.mime_type.includes('json')
              ? Buffer.from(embedding.data, 'base64').toString('utf8') + embedding.data
              : embedding.data,
          );
        if (step.result?.error_message) out.push(step.result.error_message);
      }
  return out.join('\n');
}

/**
 * The console of a run without cucumber's echo of a scenario's steps (the summary lists a failed or
 * retried scenario's steps: the feature file's own text, `✔ Then the customer can claim "d" with
 * the secret key "k" # dist/steps/claim.steps.js:128`), as runOutputOf leaves out the step names of
 * cucumber.json: a literal of a public feature file is not evidence the run recorded. Everything
 * else stays, the errors printed under those lines included.
 */
export function consoleRunOutputOf(output: string): string {
  return output
    .split('\n')
    .filter((line) => !/^\s+\S+ (?:Given|When|Then|And|But|\*) .* # \S+:\d+$/.test(line))
    .join('\n');
}

/**
 * Every word of the feature files: a token written there is public (a wrong token the target must
 * refuse).
 */
function featureWords(): Set<string> {
  const words = new Set<string>();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.feature'))
        for (const word of readFileSync(path, 'utf8').split(/[\s"'/{}<>,:;()[\]]+/))
          words.add(word);
    }
  };
  walk(join(ROOT, 'features'));
  return words;
}

/** The report files of `reportsDir` by name, cucumber.json reduced to what the run added. */
export function reportTexts(reportsDir: string): Array<[string, string]> {
  const files: Array<[string, string]> = [];
  for (const name of ['conformance.json', 'conformance.html', 'junit.xml'])
    if (existsSync(join(reportsDir, name)))
      files.push([name, readFileSync(join(reportsDir, name), 'utf8')]);
  if (existsSync(join(reportsDir, 'cucumber.json')))
    files.push([
      'cucumber.json (the run)',
      runOutputOf(readFileSync(join(reportsDir, 'cucumber.json'), 'utf8')),
    ]);
  return files;
}

const JWT = /eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g;
const DEVICE_PATH =
  /\/api\/v1\/([^/"\\\s?<]+)\/(?:telemetry|attributes|rpc|claim|firmware|provision)/g;
const API_KEY = /ApiKey\s+([^\s"\\<]{8,})/g;
const SECRET_FIELD = new RegExp(
  `\\\\*"(?:${SECRET_FIELD_NAMES.join('|')})\\\\*":\\s*\\\\*"(?!<|\\\\*")([^"\\\\]{1,40})`,
  'g',
); // <redacted> may be cut short (<re…)

/**
 * Where the texts show a credential: one line per finding (file, shape, the text around it); empty
 * when none. `texts` defaults to the report files of `reportsDir`; extra texts (the console) may be
 * added.
 */
export function credentialLeaks(texts: Array<[string, string]>): string[] {
  const allowed = featureWords();
  const found: string[] = [];
  for (const [name, raw] of texts) {
    // the page and junit.xml escape what they show: read them as a person does
    const text = raw
      .replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)))
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&amp;/g, '&');
    const around = (at: number) => text.slice(Math.max(0, at - 60), at + 60).replace(/\s+/g, ' ');
    for (const match of text.matchAll(JWT))
      found.push(`${name}: a JWT: ...${around(match.index)}...`);
    // a placeholder of the feature text (`/api/v1/{token}/...`) is not a token
    for (const match of text.matchAll(DEVICE_PATH))
      if (!allowed.has(match[1]!) && match[1] !== '%3Credacted%3E' && !/^\{\w+\}$/.test(match[1]!))
        found.push(`${name}: a device token in a path: ...${around(match.index)}...`);
    for (const match of text.matchAll(API_KEY))
      if (!allowed.has(match[1]!)) found.push(`${name}: an API key: ...${around(match.index)}...`);
    for (const match of text.matchAll(SECRET_FIELD))
      found.push(`${name}: a secret field: ...${around(match.index)}...`);
  }
  return found;
}
