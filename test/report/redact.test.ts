import { test } from 'node:test';
import assert from 'node:assert/strict';
import { looksLikeSecret, Redactor, REDACTED } from '../../src/report/redact';
import { SECRET_FIELD_NAMES } from '../../src/report/secret-fields';
import { mintJwt } from '../support/jwt';

test('redacts secrets by shape and by value', async () => {
  const redactor = new Redactor();
  redactor.addSecret('s3cret-password');
  const jwt = await mintJwt('tenant');
  const text = [
    `POST http://127.0.0.1:1234/api/v1/A1_TEST_TOKEN/telemetry`,
    `X-Authorization: Bearer ${jwt}`,
    `ApiKey tb_abcdefghijklmnop`,
    `password was s3cret-password`,
    `POST http://127.0.0.1:1234/api/v1/provision`,
  ].join('\n');
  const out = redactor.redact(text);
  for (const secret of ['A1_TEST_TOKEN', jwt, 'tb_abcdefghijklmnop', 's3cret-password'])
    assert.ok(!out.includes(secret), secret);
  assert.ok(out.includes('/api/v1/provision'), 'the provisioning path is not a token');
  assert.ok(out.includes(REDACTED));
  assert.equal(
    redactor.redactEvidence('{"token":"abc","name":"n"}'),
    `{"token":"${REDACTED}","name":"n"}`,
  );
});

test('redacting JSON text or HTML never eats an escape or markup, and prose ellipses are not tokens', () => {
  const redactor = new Redactor();
  const json = JSON.stringify({
    message: 'GET "/api/v1/A1_TEST_TOKEN" failed',
    statement: 'its path (/api/v1/...).',
  });
  const redacted = redactor.redact(json);
  assert.deepEqual(JSON.parse(redacted), {
    message: `GET "/api/v1/${REDACTED}" failed`,
    statement: 'its path (/api/v1/...).',
  });
  assert.equal(redactor.redact('<td>/api/v1/A1_TEST_TOKEN</td>'), `<td>/api/v1/${REDACTED}</td>`);
  assert.equal(
    redactor.redact('<td>/api/v1/&#60;redacted&#62;/telemetry</td>'),
    '<td>/api/v1/&#60;redacted&#62;/telemetry</td>',
  );
  assert.equal(
    redactor.redact('"X-Authorization: Bearer abc.def\\"'),
    `"X-Authorization: Bearer ${REDACTED}\\"`,
  );
});

test('known secrets are blanked whole, never inside a longer word; ordinary words are not blanked by value', () => {
  const redactor = new Redactor();
  // the demo passwords: ordinary words, blanked where they are carried (fields, headers), never by
  // value
  assert.equal(redactor.addSecret('customer'), false);
  assert.equal(redactor.addSecret('tenant'), false);
  assert.equal(redactor.addSecret('pw7'), true); // short, but not a word
  assert.equal(redactor.addSecret('Sec0nd-factor'), true);
  const text =
    '{"customerId":"c1","said":"pw7, not pw7x","user":"x-customer","path":"/api/tenant/devices","login":{"username":"tenant@thingsboard.org","password":"tenant"}}';
  assert.equal(
    redactor.redactEvidence(text),
    `{"customerId":"c1","said":"${REDACTED}, not pw7x","user":"x-customer","path":"/api/tenant/devices","login":{"username":"tenant@thingsboard.org","password":"${REDACTED}"}}`,
  );
  // special characters in a secret are matched literally
  redactor.addSecret('a.b*c');
  assert.equal(redactor.redact('x a.b*c y aXbbc'), `x ${REDACTED} y aXbbc`);
});

test('what looks like a secret: 12 characters or more, or not a plain word', () => {
  for (const word of ['tenant', 'customer', 'Customer', 'SYSADMIN', 'brief'])
    assert.equal(looksLikeSecret(word), false, word);
  for (const secret of [
    's3cret',
    'mqtt-secret',
    'gw-s3cret',
    'A1_TEST_TOKEN',
    'abcdefghijkl',
    'camelCase',
  ])
    assert.equal(looksLikeSecret(secret), true, secret);
});

test('statement placeholders and curl lines survive: only the credential is blanked', () => {
  const redactor = new Redactor();
  redactor.addSecret('tenant');
  const statement = 'POST /api/v1/{access_token}/telemetry publishes; see /api/tenant/devices';
  assert.equal(redactor.redact(statement), statement);
  const curl = `curl -X POST http://h/api/auth/login -d '{"username":"tenant@thingsboard.org","password":"tenant"}'`;
  assert.equal(
    redactor.redactEvidence(curl),
    `curl -X POST http://h/api/auth/login -d '{"username":"tenant@thingsboard.org","password":"${REDACTED}"}'`,
  );
});

test('evidence blanks credential fields by name, not generic ones such as value', () => {
  const redactor = new Redactor();
  const body = JSON.stringify([
    { key: 'temperature', value: '21.5', lastUpdateTs: 1 },
    { secretKey: 'claim-secret', provisionDeviceSecret: 's', credentialsValue: 'v', token: 't' },
  ]);
  const out = JSON.parse(redactor.redactEvidence(body));
  assert.equal(out[0].value, '21.5');
  assert.deepEqual(out[1], {
    secretKey: REDACTED,
    provisionDeviceSecret: REDACTED,
    credentialsValue: REDACTED,
    token: REDACTED,
  });
});

test('every name of the one list is blanked, in a JSON body, in a body serialized again, and in a query', () => {
  const redactor = new Redactor();
  for (const name of SECRET_FIELD_NAMES) {
    const body = JSON.stringify({ [name]: 'visible-value', name: 'n' });
    assert.equal(redactor.redactEvidence(body), `{"${name}":"${REDACTED}","name":"n"}`, name);
    const twice = JSON.stringify({ body });
    assert.ok(!redactor.redactEvidence(twice).includes('visible-value'), `${name} escaped`);
    assert.ok(
      !redactor.redactEvidence(`/api/x?${name}=visible-value&a=1`).includes('visible-value'),
      `${name} query`,
    );
  }
});
