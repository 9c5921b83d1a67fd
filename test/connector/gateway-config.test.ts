/**
 * iotc gateway-config and the tb-gateway-3.8 profile's inputs: the gateway-ready rest.json is the
 * conformance file plus exactly the members 3.8.3 has no default for, the run's names and the
 * external API's addresses; the CA file is needed only for an HTTPS connector.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadProfile, openTarget } from '../../src/target';
import {
  GATEWAY_REQUIRED_MEMBERS,
  gatewayReadyRest,
  missingGatewayMembers,
} from '../../lib/gateway-rest';
import { iotc, ROOT } from '../support/iotc';

const CONFORMANCE = JSON.parse(
  readFileSync(join(ROOT, 'src', 'target', 'embedded-rest.json'), 'utf8'),
) as Record<string, unknown>;

/** Every path to a leaf of a JSON document, with its value. */
function leaves(value: unknown, at = '$'): Map<string, unknown> {
  const found = new Map<string, unknown>();
  if (value !== null && typeof value === 'object')
    for (const [key, inner] of Object.entries(value))
      for (const [path, leaf] of leaves(inner, `${at}.${key}`)) found.set(path, leaf);
  else found.set(at, value);
  return found;
}

describe('the gateway-ready rest.json', () => {
  it('adds only members 3.8.3 has no default for, with the specification default, and changes nothing else', () => {
    assert.ok(
      missingGatewayMembers(CONFORMANCE).length > 0,
      'the conformance file relies on defaults',
    );
    const ready = gatewayReadyRest(CONFORMANCE);
    assert.deepEqual(missingGatewayMembers(ready), []);
    const before = leaves(CONFORMANCE);
    const after = leaves(ready);
    for (const [path, value] of before) assert.deepEqual(after.get(path), value, path);
    const members = new Set(GATEWAY_REQUIRED_MEMBERS.map((required) => required.member));
    for (const path of after.keys())
      if (!before.has(path))
        assert.ok(
          path.split('.').some((step) => members.has(step)),
          `${path} is not a member 3.8.3 requires`,
        );
  });

  it('iotc gateway-config writes the folder a gateway runs: addresses, run names, absolute certificates', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'iotc-gateway-config-'));
    try {
      process.env.IOTC_TEST_GW_TOKEN = 'gateway-token';
      const { code, output } = await iotc(
        [
          'gateway-config',
          '--out',
          dir,
          '--mqtt-url',
          'mqtt://127.0.0.1:1884',
          '--gateway-token-env',
          'IOTC_TEST_GW_TOKEN',
          '--external-api-url',
          'http://127.0.0.1:6001',
          '--external-api-https-url',
          'https://127.0.0.1:6443',
          '--rest-port',
          '5999',
          '--rest-sparse-port',
          '5998',
          '--run-id',
          'abc123',
        ],
        join(dir, 'state'),
      );
      assert.equal(code, 0, output);
      const rest = readFileSync(join(dir, 'rest.json'), 'utf8');
      assert.equal(readFileSync(join(dir, 'iotc-rest.json'), 'utf8'), rest);
      const config = JSON.parse(rest) as {
        server: { port: number; security: { cert: string; key: string } };
      };
      assert.equal(config.server.port, 5999);
      assert.equal(config.server.security.cert, join(dir, 'connector-cert.pem'));
      assert.match(readFileSync(config.server.security.key, 'utf8'), /PRIVATE KEY/);
      assert.ok(!rest.includes('127.0.0.1:5001') && !rest.includes('127.0.0.1:5443'));
      assert.ok(
        rest.includes('http://127.0.0.1:6001/upd/') && rest.includes('https://127.0.0.1:6443/tls/'),
      );
      assert.ok(rest.includes('"iotc-abc123-rest-constant-device"'));
      assert.deepEqual(missingGatewayMembers(JSON.parse(rest) as Record<string, unknown>), []);
      const gateway = JSON.parse(readFileSync(join(dir, 'tb_gateway.json'), 'utf8')) as {
        thingsboard: { host: string; port: number; security: { accessToken: string } };
        connectors: Array<{ type: string; configuration: string }>;
      };
      assert.deepEqual(
        [
          gateway.thingsboard.host,
          gateway.thingsboard.port,
          gateway.thingsboard.security.accessToken,
        ],
        ['127.0.0.1', 1884, 'gateway-token'],
      );
      assert.deepEqual(
        gateway.connectors.map((connector) => connector.configuration),
        ['rest.json', 'rest-sparse.json'],
      );
      // the second connector: the file without the optional sections, host added, on its own port,
      // over HTTP
      const sparseText = readFileSync(join(dir, 'rest-sparse.json'), 'utf8');
      assert.equal(readFileSync(join(dir, 'iotc-rest-sparse.json'), 'utf8'), sparseText);
      const sparse = JSON.parse(sparseText) as {
        server: Record<string, unknown>;
        requestsMapping: Record<string, unknown>;
      };
      assert.deepEqual(sparse.server, { SSL: false, host: '127.0.0.1', port: 5998 });
      assert.deepEqual(sparse.requestsMapping, {});
      assert.ok(output.includes('IOTC_GW_REST_SPARSE_URL=http://127.0.0.1:5998'), output);
      // the custom converter the text endpoint names, in Python, for the gateway's extensions/rest
      // folder
      assert.ok(rest.includes('"extension": "KeyValueTextConverter"'));
      assert.match(
        readFileSync(join(dir, 'extensions', 'rest', 'key_value_text_converter.py'), 'utf8'),
        /^class KeyValueTextConverter\(/m,
      );
      assert.ok(output.includes('IOTC_RUN_ID=abc123'), output);
      assert.ok(!output.includes('gateway-token'), 'the token is not printed');
    } finally {
      delete process.env.IOTC_TEST_GW_TOKEN;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('iotc gateway-config --default-rest-port', () => {
  it('leaves server.port out, so the gateway listens on its default 5000 (RC-SRV-02 exercised)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'iotc-gateway-config-'));
    try {
      process.env.IOTC_TEST_GW_TOKEN = 'gateway-token';
      const { code, output } = await iotc(
        [
          'gateway-config',
          '--out',
          dir,
          '--mqtt-url',
          'mqtt://127.0.0.1:1884',
          '--gateway-token-env',
          'IOTC_TEST_GW_TOKEN',
          '--external-api-url',
          'http://127.0.0.1:6001',
          '--default-rest-port',
          '--rest-sparse-port',
          '5998',
        ],
        join(dir, 'state'),
      );
      assert.equal(code, 0, output);
      const config = JSON.parse(readFileSync(join(dir, 'iotc-rest.json'), 'utf8')) as {
        server: Record<string, unknown>;
      };
      assert.equal(config.server.port, undefined);
      assert.equal(config.server.host, '127.0.0.1');
      assert.ok(output.includes('IOTC_GW_REST_URL=https://127.0.0.1:5000'), output);
    } finally {
      delete process.env.IOTC_TEST_GW_TOKEN;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the tb-gateway-3.8 profile', () => {
  const env = {
    IOTC_TB_URL: 'http://127.0.0.1:1',
    IOTC_TB_MQTT_URL: 'mqtt://127.0.0.1:2',
    IOTC_TB_TENANT_USER: 'tenant',
    IOTC_TB_TENANT_PASSWORD: 'secret',
    IOTC_GW_REST_CONFIG: join(ROOT, 'src', 'target', 'embedded-rest.json'),
    IOTC_EXTERNAL_API_URL: 'http://127.0.0.1:3',
    IOTC_GW_TOKEN: 'token',
  };

  it('needs no CA file for an HTTP connector', () => {
    const profile = loadProfile('tb-gateway-3.8', {
      ...env,
      IOTC_GW_REST_URL: 'http://127.0.0.1:4',
    });
    assert.equal(profile.connector?.tls?.caFile, undefined);
  });

  it('refuses an HTTPS connector without a CA file when the target opens', async () => {
    const saved = { ...process.env };
    Object.assign(process.env, env, { IOTC_GW_REST_URL: 'https://127.0.0.1:4' });
    delete process.env.IOTC_GW_REST_CA_FILE;
    try {
      await assert.rejects(openTarget('tb-gateway-3.8'), /needs a caFile/);
    } finally {
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
      Object.assign(process.env, saved);
    }
  });
});
