import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Redactor, REDACTED } from '../../src/report/redact';
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

test('known secrets are blanked whole, at any length, never inside a longer word', () => {
  const redactor = new Redactor();
  redactor.addSecret('customer'); // a password that is also the start of common words
  redactor.addSecret('pw7'); // shorter than any length rule would keep
  const text =
    '{"customerId":"c1","password was":"customer","note":"pw7, not pw7x","user":"x-customer"}';
  assert.equal(
    redactor.redact(text),
    `{"customerId":"c1","password was":"${REDACTED}","note":"${REDACTED}, not pw7x","user":"x-customer"}`,
  );
  // special characters in a secret are matched literally
  redactor.addSecret('a.b*c');
  assert.equal(redactor.redact('x a.b*c y aXbbc'), `x ${REDACTED} y aXbbc`);
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
