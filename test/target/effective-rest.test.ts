/**
 * The run's check of exercised defaults (src/target/effective-rest.ts, issue 25): every requirement
 * that states a default names objects of the conformance file that omit the member, and a
 * configuration that names the member makes a PASS NOT TESTED with that reason, unless the target
 * declares a deviation.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Requirement } from '../../schemas';
import { gatewayReadyRest, GATEWAY_REQUIRED_MEMBERS } from '../../lib/gateway-rest';
import {
  atPath,
  defaultsNotExercised,
  embeddedRestConfig,
  routedDestinations,
  withUnexercisedDefaults,
} from '../../src/target/effective-rest';
import { ROOT } from '../support/iotc';

const CATALOGUE = (
  JSON.parse(readFileSync(join(ROOT, 'features', 'requirements.json'), 'utf8')) as {
    requirements: Requirement[];
  }
).requirements;
const NONE = new Set<string>();

test('the conformance file omits every member whose default a requirement states', () => {
  // server.port too: the embedded connector publishes its default 5000 at a free host port
  const reasons = defaultsNotExercised(CATALOGUE, embeddedRestConfig(undefined), NONE);
  assert.deepEqual([...reasons.keys()], []);
});

test('a default requestUrlExpression is exercised only where the target routes its destination', () => {
  const config = embeddedRestConfig(undefined);
  const reasons = defaultsNotExercised(CATALOGUE, config, NONE, new Set(['sensor:80']));
  assert.deepEqual([...reasons.keys()], ['RC-RPC-04']);
  assert.match(
    reasons.get('RC-RPC-04') ?? '',
    /^default not exercised: .*connector\.routedDestinations does not name 127\.0\.0\.1:5001/,
  );
  const embedded = routedDestinations({ embedded: true } as never);
  assert.deepEqual([...embedded].sort(), ['127.0.0.1:5001', 'sensor:80']);
  assert.equal(
    routedDestinations({ connector: { url: 'http://x', configFile: 'f' } } as never).size,
    0,
  );
  // a configuration that names the member says so, whatever the routes
  const named = structuredClone(config) as { server: { port?: number } };
  named.server.port = 18500;
  assert.match(
    defaultsNotExercised(CATALOGUE, named, NONE).get('RC-SRV-02') ?? '',
    /names server\.port/,
  );
});

test('every member iotc gateway-config adds for 3.8.3 belongs to a requirement whose default the file then names', () => {
  const ready = gatewayReadyRest(embeddedRestConfig(undefined));
  const reasons = defaultsNotExercised(CATALOGUE, ready, NONE);
  const testable = new Set(CATALOGUE.filter((r) => r.testable).map((r) => r.id));
  for (const { requirement } of GATEWAY_REQUIRED_MEMBERS) {
    if (!testable.has(requirement)) continue;
    assert.ok(reasons.has(requirement), `${requirement}: the added member goes unnoticed`);
  }
  // a declared deviation is decided by its own scenario
  const declared = defaultsNotExercised(CATALOGUE, ready, new Set(['RC-SRV-01']));
  assert.ok(!declared.has('RC-SRV-01'));
});

test('a PASS becomes NOT TESTED, a NOT TESTED takes the reason (not one the catalogue marks not testable); FAIL and the other verdicts stand', () => {
  const reasons = new Map([
    ['A', 'default not exercised: x'],
    ['B', 'default not exercised: y'],
    ['D', 'default not exercised: z'],
  ]);
  const results = withUnexercisedDefaults(
    [
      { id: 'A', verdict: 'PASS' },
      { id: 'B', verdict: 'FAIL' },
      { id: 'C', verdict: 'PASS' },
      { id: 'D', verdict: 'NOT TESTED', reason: 'partial: 1 of 2 scenarios ran' },
      { id: 'E', verdict: 'NOT TESTED', reason: 'not testable: the platform always answers' },
    ],
    new Map([...reasons, ['E', 'default not exercised: w']]),
  );
  assert.deepEqual(results, [
    { id: 'A', verdict: 'NOT TESTED', reason: 'default not exercised: x' },
    { id: 'B', verdict: 'FAIL' },
    { id: 'C', verdict: 'PASS' },
    { id: 'D', verdict: 'NOT TESTED', reason: 'default not exercised: z' },
    { id: 'E', verdict: 'NOT TESTED', reason: 'not testable: the platform always answers' },
  ]);
});

test('a path reaches into arrays and objects; a missing object is reported, not taken as omitted', () => {
  const config = { mapping: [{ converter: { timeseries: [{ key: 'a' }] } }] };
  assert.deepEqual(atPath(config, 'mapping[0].converter.timeseries[0]'), { key: 'a' });
  assert.equal(atPath(config, 'mapping[3].converter'), undefined);
  const reasons = defaultsNotExercised(
    [
      {
        id: 'X',
        interface: 'rest-connector',
        role: 'connector',
        statement: 's',
        section: 's',
        level: 'MUST',
        testable: true,
        defaultOmittedIn: [{ object: 'mapping[3]', member: 'endpoint' }],
      },
    ],
    config,
    NONE,
  );
  assert.equal(
    reasons.get('X'),
    'default not exercised: the configuration the target loads has no mapping[3]',
  );
});
