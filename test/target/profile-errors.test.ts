/**
 * Target profile mistakes are reported so a user can fix them in one go: the line and column of a
 * JSON syntax error, the unknown member by name, the allowed values of an enum, every missing
 * environment variable at once, and the built-in profiles when a name is not one of them.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { builtInProfiles, loadProfile, TargetProfileError } from '../../src/target';

const dir = mkdtempSync(join(tmpdir(), 'iotc-profile-errors-'));
function profileFile(text: string): string {
  const path = join(dir, `profile-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(path, text);
  return path;
}
const valid = {
  name: 'staging',
  platform: {
    http: 'http://127.0.0.1:9',
    tenantAdmin: { username: 'tenant@thingsboard.org', password: 'x' },
  },
  namePrefix: 'iotc-',
};

function messageOf(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    assert.ok(error instanceof TargetProfileError, String(error));
    return error.message;
  }
  assert.fail('the profile was accepted');
}

test('a JSON syntax error names its line and column', () => {
  const path = profileFile('{\n  "name": "staging",\n  "platform": {\n    "http": "x",,\n  }\n}\n');
  assert.match(
    messageOf(() => loadProfile(path, {})),
    /is not valid JSON: .*\(line 4, column 17\)/,
  );
});

test('an unknown member is named, and enum errors list the allowed values', () => {
  const path = profileFile(
    JSON.stringify({ ...valid, namePrefx: 'typo-', capabilities: ['mqtt5', 'telepathy'] }),
  );
  const message = messageOf(() => loadProfile(path, {}));
  assert.match(message, /unknown member "namePrefx"/);
  assert.match(message, /\/capabilities\/1 must be one of .*"mqtt5".*"provisioning"/);
});

test('every missing environment variable is reported at once', () => {
  const path = profileFile(
    JSON.stringify({
      ...valid,
      platform: {
        ...valid.platform,
        tenantAdmin: { username: '${env:IOTC_T_USER}', password: '${env:IOTC_T_PASSWORD}' },
        customerUser: { username: '${env:IOTC_T_USER}', password: '${env:IOTC_C_PASSWORD}' },
      },
    }),
  );
  assert.match(
    messageOf(() => loadProfile(path, { IOTC_C_PASSWORD: 'set' })),
    /needs the environment variables IOTC_T_USER, IOTC_T_PASSWORD$/,
  );
});

test('an unknown built-in profile lists the built-in ones', () => {
  const message = messageOf(() => loadProfile('thingsbaord-4.3', {}));
  assert.ok(builtInProfiles().includes('embedded'));
  for (const name of builtInProfiles()) assert.ok(message.includes(name), `${name} listed`);
  assert.doesNotMatch(message, /ENOENT/);
});
