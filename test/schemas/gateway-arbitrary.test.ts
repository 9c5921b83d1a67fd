/**
 * The gateway payload arbitraries (schemas/arbitrary.ts) against the gateway schemas and an
 * independent reading.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  arbitraryFromSchema,
  malformedGatewayAttributes,
  malformedGatewayTelemetry,
  validGatewayAttributes,
  validGatewayTelemetry,
  type GatewayExpectedEntry,
  type ValidGatewayPayload,
} from '../../schemas/arbitrary';
import {
  gatewayAttributeRequestSchema,
  gatewayAttributesSchema,
  gatewayClaimSchema,
  gatewayConnectSchema,
  gatewayRpcReplySchema,
  gatewayTelemetrySchema,
} from '../../schemas';
import { isValid } from '../../schemas/validate';
import { parseLossless, typedValueOf, typedValuesEqual } from '../../lib/kv/values';

const RUNS = 200;
const SLOTS = ['slot-a', 'slot-b'];
const deviceNames = fc.constantFrom(...SLOTS);

/**
 * What a platform following docs/reference/interfaces.md stores for a gateway body, read without
 * the generator's help.
 */
function storedEntries(resource: 'telemetry' | 'attributes', body: string): GatewayExpectedEntry[] {
  const document = parseLossless(body) as Record<string, unknown>;
  return Object.entries(document).flatMap(([device, value]) => {
    const groups =
      resource === 'telemetry'
        ? (value as Array<Record<string, unknown>>).map((entry) => ({
            values: entry.values as Record<string, unknown>,
            ts: entry.ts === undefined ? undefined : Number(String(entry.ts)),
          }))
        : [{ values: value as Record<string, unknown>, ts: undefined }];
    return groups.flatMap(({ values, ts }) =>
      Object.entries(values).map(([key, raw]) => {
        const typed = typedValueOf(raw);
        assert.ok(typed, `${device}/${key} has no value`);
        return ts === undefined ? { device, key, value: typed } : { device, key, value: typed, ts };
      }),
    );
  });
}

function assertExpectedMatchesBody(
  resource: 'telemetry' | 'attributes',
  payload: ValidGatewayPayload,
): void {
  const stored = storedEntries(resource, payload.body);
  assert.equal(stored.length, payload.expected.length, payload.body);
  assert.deepEqual(
    new Set(payload.devices),
    new Set(Object.keys(parseLossless(payload.body) as object)),
  );
  for (const expected of payload.expected) {
    const matches = stored.filter(
      (entry) => entry.device === expected.device && entry.key === expected.key,
    );
    assert.equal(
      matches.length,
      1,
      `${expected.device}/${expected.key} names exactly one entry of ${payload.body}`,
    );
    assert.ok(
      typedValuesEqual(matches[0].value, expected.value),
      `${expected.key}: ${matches[0].value.type} in the body, ${expected.value.type} expected`,
    );
    assert.equal(matches[0].ts, expected.ts);
  }
}

test('valid gateway telemetry passes gatewayTelemetrySchema, uses the given device names and carries what must be stored', () => {
  let withTs = false;
  let withoutTs = false;
  let twoDevices = false;
  fc.assert(
    fc.property(validGatewayTelemetry({ deviceNames }), (payload) => {
      assert.ok(isValid(gatewayTelemetrySchema, payload.document), payload.body);
      assert.ok(
        payload.devices.every((device) => SLOTS.includes(device)),
        payload.body,
      );
      assertExpectedMatchesBody('telemetry', payload);
      withTs ||= payload.expected.some((entry) => entry.ts !== undefined);
      withoutTs ||= payload.expected.some((entry) => entry.ts === undefined);
      twoDevices ||= payload.devices.length === 2;
    }),
    { numRuns: RUNS, seed: 21 },
  );
  assert.ok(
    withTs && withoutTs && twoDevices,
    'entries with and without ts, and messages for two devices, occur',
  );
});

test('valid gateway attributes pass gatewayAttributesSchema and carry what must be stored', () => {
  fc.assert(
    fc.property(validGatewayAttributes({ deviceNames }), (payload) => {
      assert.ok(isValid(gatewayAttributesSchema, payload.document), payload.body);
      assertExpectedMatchesBody('attributes', payload);
    }),
    { numRuns: RUNS, seed: 22 },
  );
});

function isRejected(schema: object, body: string): boolean {
  try {
    return !isValid(schema, JSON.parse(body));
  } catch {
    return true;
  }
}

/**
 * Every sample is rejected by the schema (or is not JSON), and exactly these defect kinds occur.
 */
function assertMalformed(
  arbitrary: fc.Arbitrary<{ defect: string; body: string }>,
  schema: object,
  seed: number,
  kinds: string[],
): void {
  const defects = new Set<string>();
  fc.assert(
    fc.property(arbitrary, (payload) => {
      defects.add(payload.defect);
      assert.ok(isRejected(schema, payload.body), `${payload.defect}: ${payload.body}`);
    }),
    { numRuns: 1000, seed },
  );
  assert.deepEqual([...defects].sort(), [...kinds].sort());
}

const BROKEN_TEXT = ['trailing garbage after the JSON text', 'truncated JSON text', 'unquoted key'];
const SHARED_DEFECTS = [
  'empty device name',
  'no device',
  'null value',
  'top level is not an object',
  ...BROKEN_TEXT,
];

test('every malformed gateway telemetry sample is rejected, and every defect kind occurs', () => {
  assertMalformed(malformedGatewayTelemetry({ deviceNames }), gatewayTelemetrySchema, 23, [
    ...SHARED_DEFECTS,
    'device value is not an array',
    'entry is not an object',
    'entry without values',
    'ts is not an integer',
    'values is not an object',
  ]);
});

test('every malformed gateway attributes sample is rejected, and every defect kind occurs', () => {
  assertMalformed(malformedGatewayAttributes({ deviceNames }), gatewayAttributesSchema, 24, [
    ...SHARED_DEFECTS,
    'device value is not an object',
  ]);
});

test('propertyNames: member names obey it, or come from an override matched by identity', () => {
  const schema = {
    type: 'object',
    propertyNames: { minLength: 3, maxLength: 5 },
    additionalProperties: { type: 'integer' },
    minProperties: 1,
  } as const;
  fc.assert(
    fc.property(arbitraryFromSchema(schema), (value) => isValid(schema, value)),
    { numRuns: RUNS },
  );
  const names = fc.constantFrom('one', 'two');
  const overridden = arbitraryFromSchema(schema, {
    overrides: new Map([[schema.propertyNames, names]]),
  });
  fc.assert(
    fc.property(overridden, (value) =>
      Object.keys(value as object).every((key) => key === 'one' || key === 'two'),
    ),
    { numRuns: RUNS },
  );
});

test('the other gateway schemas derive too, and their samples validate', () => {
  for (const schema of [
    gatewayConnectSchema,
    gatewayClaimSchema,
    gatewayRpcReplySchema,
    gatewayAttributeRequestSchema,
  ]) {
    fc.assert(
      fc.property(arbitraryFromSchema(schema), (value) => isValid(schema, value)),
      { numRuns: RUNS },
    );
  }
});

test('gateway payloads replay from a seed', () => {
  const bodies = (seed: number) =>
    fc
      .sample(
        fc.tuple(
          validGatewayTelemetry({ deviceNames }),
          malformedGatewayAttributes({ deviceNames }),
        ),
        { seed, numRuns: 30 },
      )
      .map(([valid, bad]) => valid.body + bad.body);
  assert.deepEqual(bodies(5), bodies(5));
  assert.notDeepEqual(bodies(5), bodies(6));
});
