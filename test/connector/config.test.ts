/**
 * rest.json defaults: every parameter left out takes the default of docs/reference/interfaces.md's
 * tables (timeouts in seconds).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  completeConfig,
  ConnectorConfigError,
  CONNECTOR_QUIRKS_MODES,
} from '../../simulators/connector';
import { gatewayReadyRest } from '../../lib/gateway-rest';
import { targetProfileSchema } from '../../schemas';

describe('rest.json defaults', () => {
  const config = completeConfig({
    server: {},
    mapping: [{}],
    requestsMapping: { attributeRequests: [{}], attributeUpdates: [{}], serverSideRpc: [{}] },
  });

  it('server: 127.0.0.1, port 5000, SSL off', () => {
    assert.deepEqual(config.server, {
      host: '127.0.0.1',
      port: 5000,
      ssl: false,
      security: undefined,
    });
  });

  it('mapping: /test_device, GET, basic <USERNAME>/<PASSWORD>, json converter with Device ${name} and profile default, status-only response', () => {
    const [mapping] = config.mapping;
    assert.equal(mapping!.endpoint, '/test_device');
    assert.deepEqual(mapping!.methods, ['GET']);
    assert.deepEqual(mapping!.security, {
      type: 'basic',
      username: '<USERNAME>',
      password: '<PASSWORD>',
    });
    assert.deepEqual(mapping!.converter, {
      type: 'json',
      deviceInfo: {
        deviceNameExpression: 'Device ${name}',
        deviceNameExpressionSource: 'request',
        deviceProfileExpression: 'default',
        deviceProfileExpressionSource: 'request',
      },
      attributes: [],
      timeseries: [],
    });
    assert.deepEqual(mapping!.response, { kind: 'default' });
  });

  it('responses: hardcoded OK/Error; remote with responseExpected true, timeout 120 s, attribute result', () => {
    const responses = completeConfig({
      server: {},
      mapping: [
        { endpoint: '/a', response: {} },
        { endpoint: '/b', response: { timeout: 5 } },
        { endpoint: '/c', response: { responseExpected: false, responseAttribute: 'x' } },
      ],
    }).mapping.map((mapping) => mapping.response);
    assert.deepEqual(responses[0], {
      kind: 'hardcoded',
      successResponse: 'OK',
      unsuccessfulResponse: 'Error',
    });
    assert.deepEqual(responses[1], {
      kind: 'remote',
      responseAttribute: 'result',
      timeoutSec: 5,
      unsuccessfulResponse: undefined,
    });
    assert.deepEqual(responses[2], {
      kind: 'hardcoded',
      successResponse: 'OK',
      unsuccessfulResponse: 'Error',
    });
    const remote = completeConfig({
      server: {},
      mapping: [{ response: { responseAttribute: 'r' } }],
    }).mapping[0]!.response;
    assert.deepEqual(remote, {
      kind: 'remote',
      responseAttribute: 'r',
      timeoutSec: 120,
      unsuccessfulResponse: undefined,
    });
  });

  it('attributeRequests: /sharedAttributes, shared, POST, basic, 10 s, ${deviceName}, ${attribute}', () => {
    assert.deepEqual(config.attributeRequests[0], {
      endpoint: '/sharedAttributes',
      type: 'shared',
      methods: ['POST'],
      security: { type: 'basic', username: '<USERNAME>', password: '<PASSWORD>' },
      timeoutSec: 10,
      deviceNameExpression: '${deviceName}',
      attributeNameExpression: '${attribute}',
    });
  });

  it('attributeUpdates: POST, SSLVerify false, JSON header, 0.5 s, 3 tries, redirects followed, .*REST$, data, sensor URL and body', () => {
    const rule = config.attributeUpdates[0]!;
    assert.equal(rule.method, 'POST');
    assert.equal(rule.sslVerify, false);
    assert.deepEqual(rule.headers, { 'CONTENT-TYPE': 'application/json' });
    assert.equal(rule.timeoutSec, 0.5);
    assert.equal(rule.tries, 3);
    assert.equal(rule.allowRedirects, true);
    assert.ok(rule.deviceNameFilter.test('Device REST') && !rule.deviceNameFilter.test('RESTless'));
    assert.ok(rule.attributeFilter.test('data') && !rule.attributeFilter.test('metadata'));
    assert.equal(rule.requestUrlExpression, 'sensor/${deviceName}/${attributeKey}');
    assert.equal(rule.valueExpression, '{"${attributeKey}":"${attributeValue}"}');
  });

  it('serverSideRpc: any device, echo, 127.0.0.1:5001/${deviceName}, responseTimeout 1 s, GET, ${params}, 0.5 s, 3 tries, anonymous', () => {
    const rule = config.serverSideRpc[0]!;
    assert.ok(rule.deviceNameFilter.test('anything at all'));
    assert.ok(rule.methodFilter.test('echo') && !rule.methodFilter.test('echo2'));
    assert.equal(rule.requestUrlExpression, 'http://127.0.0.1:5001/${deviceName}');
    assert.equal(rule.responseTimeoutSec, 1);
    assert.equal(rule.idPlaceholder, 'requestId');
    assert.equal(rule.method, 'GET');
    assert.equal(rule.valueExpression, '${params}');
    assert.equal(rule.timeoutSec, 0.5);
    assert.equal(rule.tries, 3);
    assert.deepEqual(rule.headers, { 'CONTENT-TYPE': 'application/json' });
    assert.deepEqual(rule.security, { type: 'anonymous' });
  });

  it('refuses an invalid file with every problem', () => {
    assert.throws(
      () => completeConfig({ server: { port: 'x' }, mapping: [{ HTTPMethods: [] }] }),
      (error: unknown) => error instanceof ConnectorConfigError && error.problems.length === 2,
    );
  });
});

describe('rest.json defaults in the tb-gateway-3.8 quirks mode', () => {
  const file = {
    server: {},
    mapping: [
      { response: {} },
      {
        endpoint: '/explicit',
        security: { type: 'basic' as const, username: 'u', password: 'p' },
        response: { successResponse: 'S', unsuccessfulResponse: 'U' },
      },
    ],
    requestsMapping: {
      attributeUpdates: [
        {},
        { SSLVerify: false, allowRedirects: true, httpMethod: 'PUT' as const },
      ],
      serverSideRpc: [{}, { HTTPMethod: 'POST' as const, tries: 3, responseTimeout: 1 }],
    },
  };
  const quirks = CONNECTOR_QUIRKS_MODES['tb-gateway-3.8'];
  // 3.8.3 cannot run the file as it is: the mode runs what iotc gateway-config writes
  const config = completeConfig(gatewayReadyRest(file), 'rest.json', quirks);

  it('refuses a file without the members 3.8.3 has no default for, naming each', () => {
    assert.throws(
      () => completeConfig(file, 'rest.json', quirks),
      (error: unknown) =>
        error instanceof ConnectorConfigError &&
        error.problems.includes(
          'mapping[0].endpoint: required by the gateway version this connector reproduces',
        ) &&
        error.problems.includes(
          'serverSideRpc[0].methodFilter: required by the gateway version this connector reproduces',
        ),
    );
  });

  it('only HTTPMethod names the method, GET by default; no default headers; one attempt; no responseTimeout', () => {
    assert.deepEqual(
      config.attributeUpdates.map((rule) => rule.method),
      ['GET', 'GET'],
    );
    assert.deepEqual(
      config.serverSideRpc.map((rule) => rule.method),
      ['GET', 'POST'],
    );
    assert.deepEqual(config.attributeUpdates[0]!.headers, {});
    assert.deepEqual(
      config.serverSideRpc.map((rule) => [rule.tries, rule.responseTimeoutSec]),
      [
        [1, Infinity],
        [1, Infinity],
      ],
    );
  });

  it('a mapping without security is anonymous; an explicit basic section stays basic', () => {
    assert.deepEqual(config.mapping[0]!.security, { type: 'anonymous' });
    assert.deepEqual(config.mapping[1]!.security, { type: 'basic', username: 'u', password: 'p' });
  });

  it('hardcoded responses have no OK / Error defaults; configured bodies stay', () => {
    assert.deepEqual(config.mapping[0]!.response, {
      kind: 'hardcoded',
      successResponse: '',
      unsuccessfulResponse: '',
    });
    assert.deepEqual(config.mapping[1]!.response, {
      kind: 'hardcoded',
      successResponse: 'S',
      unsuccessfulResponse: 'U',
    });
  });

  it('outgoing calls verify certificates and do not follow redirects unless told; the RPC id is ${restId}', () => {
    assert.deepEqual(
      [config.attributeUpdates[0]!.sslVerify, config.attributeUpdates[0]!.allowRedirects],
      [true, false],
    );
    assert.deepEqual(
      [config.attributeUpdates[1]!.sslVerify, config.attributeUpdates[1]!.allowRedirects],
      [false, true],
    );
    assert.equal(config.serverSideRpc[0]!.idPlaceholder, 'restId');
  });

  it('the target profile schema offers exactly the quirks modes the connector has', () => {
    assert.deepEqual(
      [...targetProfileSchema.properties.connectorQuirks.enum].sort(),
      Object.keys(CONNECTOR_QUIRKS_MODES).sort(),
    );
  });
});
