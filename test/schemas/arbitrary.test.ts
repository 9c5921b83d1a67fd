import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  arbitraryFromSchema,
  hasLateTs,
  hasStringValue,
  payloadPart,
  storesNothingFor,
  keyArbitrary,
  malformedClientAttributes,
  malformedTelemetry,
  typedValueArbitrary,
  UnsupportedSchemaError,
  validClientAttributes,
  validTelemetry,
  type ExpectedEntry,
  type JsonSchema,
  type TelemetryForm,
  type ValidPayload,
} from '../../schemas/arbitrary';
import {
  attributesResponseSchema,
  claimSchema,
  clientAttributesSchema,
  firmwareQuerySchema,
  longPollQuerySchema,
  plainTelemetrySchema,
  provisionRequestSchema,
  provisionResponseSchema,
  rpcRequestSchema,
  serverRpcCallSchema,
  telemetrySchema,
  timestampedTelemetrySchema,
} from '../../schemas';
import { isValid } from '../../schemas/validate';
import {
  parseLossless,
  stringifyLossless,
  typedValueOf,
  typedValuesEqual,
  typedValueToLossless,
  type ValueType,
} from '../../lib/kv/values';

const RUNS = 300;
const FORMS: TelemetryForm[] = ['object', 'array', 'timestamped'];
const FORM_SCHEMAS: Record<TelemetryForm, JsonSchema> = {
  object: plainTelemetrySchema,
  timestamped: timestampedTelemetrySchema,
  array: telemetrySchema.anyOf[2],
};

/**
 * What a platform that follows docs/reference/interfaces.md stores for a body, read independently
 * of the generator.
 */
function storedEntries(body: string): ExpectedEntry[] {
  const parsed = parseLossless(body);
  const elements = (Array.isArray(parsed) ? parsed : [parsed]) as Array<Record<string, unknown>>;
  return elements.flatMap((element) => {
    const timestamped = 'ts' in element && 'values' in element;
    const values = (timestamped ? element.values : element) as Record<string, unknown>;
    const ts = timestamped ? Number(String(element.ts)) : undefined;
    return Object.entries(values).map(([key, raw]) => {
      const value = typedValueOf(raw);
      assert.ok(value, `key ${key} has no value`);
      return ts === undefined ? { key, value } : { key, value, ts };
    });
  });
}

function assertRoundTrip(payload: ValidPayload): void {
  const stored = storedEntries(payload.body);
  assert.equal(stored.length, payload.expected.length, payload.body);
  const keys = new Set(payload.expected.map((entry) => entry.key));
  assert.equal(
    keys.size,
    payload.expected.length,
    `keys are unique within the payload: ${payload.body}`,
  );
  for (const expected of payload.expected) {
    const actual = stored.find((entry) => entry.key === expected.key);
    assert.ok(actual, `key ${expected.key} is in the body`);
    assert.ok(
      typedValuesEqual(actual.value, expected.value),
      `${expected.key}: ${actual.value.type} read back, ${expected.value.type} generated; body ${payload.body}`,
    );
    assert.equal(actual.ts, expected.ts);
  }
}

test('every valid telemetry sample of each form passes its schema and telemetrySchema', () => {
  for (const form of FORMS) {
    fc.assert(
      fc.property(validTelemetry(form), (payload) => {
        assert.equal(payload.form, form);
        assert.ok(isValid(FORM_SCHEMAS[form], payload.document), `${form}: ${payload.body}`);
        assert.ok(isValid(telemetrySchema, payload.document), payload.body);
      }),
      { numRuns: RUNS },
    );
  }
});

test('every valid client-attributes sample passes clientAttributesSchema', () => {
  fc.assert(
    fc.property(validClientAttributes(), (payload) => {
      assert.ok(isValid(clientAttributesSchema, payload.document), payload.body);
    }),
    { numRuns: RUNS },
  );
});

test('the generated types round-trip through parseLossless + typedValueOf, keys unique per payload', () => {
  fc.assert(fc.property(validTelemetry(), assertRoundTrip), { numRuns: RUNS });
  fc.assert(fc.property(validClientAttributes(), assertRoundTrip), { numRuns: RUNS });
});

test('each typed value serializes with a lexeme that reads back as the same type', () => {
  fc.assert(
    fc.property(typedValueArbitrary(), (typed) => {
      const back = typedValueOf(
        (
          parseLossless(stringifyLossless({ k: typedValueToLossless(typed) })) as Record<
            string,
            unknown
          >
        ).k,
      );
      assert.ok(
        back && typedValuesEqual(back, typed),
        `${typed.type} ${stringifyLossless(typedValueToLossless(typed))}`,
      );
    }),
    { numRuns: 1000 },
  );
});

test('all five value types appear, LONGs beyond 2^53 and 2^63-1 included', () => {
  const seen = new Set<ValueType>();
  let beyondSafe = false;
  for (const typed of fc.sample(typedValueArbitrary(), { seed: 42, numRuns: 2000 })) {
    seen.add(typed.type);
    if (
      typed.type === 'LONG' &&
      (typed.value > BigInt(Number.MAX_SAFE_INTEGER) ||
        typed.value < -BigInt(Number.MAX_SAFE_INTEGER))
    )
      beyondSafe = true;
  }
  assert.deepEqual([...seen].sort(), ['BOOLEAN', 'DOUBLE', 'JSON', 'LONG', 'STRING']);
  assert.ok(beyondSafe);
  const longMax = fc
    .sample(typedValueArbitrary(), { seed: 7, numRuns: 5000 })
    .some((typed) => typed.type === 'LONG' && typed.value === 2n ** 63n - 1n);
  assert.ok(longMax, 'the bias of fc.bigInt reaches the end of the range');
});

test('keys are never blank, never carry commas or outer spaces, never ts/values/__proto__', () => {
  for (const key of fc.sample(keyArbitrary(), { seed: 1, numRuns: 2000 })) {
    assert.ok(key.length > 0 && key === key.trim() && !key.includes(','), JSON.stringify(key));
    assert.ok(!['ts', 'values', '__proto__'].includes(key));
  }
});

function isRejected(schema: JsonSchema, body: string): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body); // an independent parser: not the one the generator filtered with
  } catch {
    return true;
  }
  return !isValid(schema, parsed);
}

test('every malformed telemetry sample fails telemetrySchema or JSON parsing, and every defect kind occurs', () => {
  const defects = new Set<string>();
  fc.assert(
    fc.property(malformedTelemetry(), (payload) => {
      defects.add(payload.defect);
      assert.ok(isRejected(telemetrySchema, payload.body), `${payload.defect}: ${payload.body}`);
    }),
    { numRuns: 1000, seed: 11 },
  );
  assert.deepEqual([...defects].sort(), [
    'array holding a non-object',
    'null value',
    'null value in an array element',
    'null value in timestamped values',
    'top-level primitive',
    'trailing garbage after the JSON text',
    'truncated JSON text',
    'ts is not an integer',
    'unquoted key',
    'values is not an object',
  ]);
});

test('every malformed client-attributes sample fails clientAttributesSchema or JSON parsing', () => {
  const defects = new Set<string>();
  fc.assert(
    fc.property(malformedClientAttributes(), (payload) => {
      defects.add(payload.defect);
      assert.ok(
        isRejected(clientAttributesSchema, payload.body),
        `${payload.defect}: ${payload.body}`,
      );
    }),
    { numRuns: 1000, seed: 12 },
  );
  assert.equal(defects.size, 6);
});

test('seeded runs are reproducible', () => {
  const bodies = (seed: number) =>
    fc
      .sample(fc.tuple(validTelemetry(), validClientAttributes(), malformedTelemetry()), {
        seed,
        numRuns: 50,
      })
      .map((sample) => JSON.stringify(sample.map((part) => part.body)));
  assert.deepEqual(bodies(123), bodies(123));
  assert.notDeepEqual(bodies(123), bodies(124));
  // and a failure replays from seed + path, as the scenarios do with FC_SEED / FC_PATH
  const property = fc.property(validTelemetry('array'), (payload) => payload.expected.length < 4);
  const first = fc.check(property, { seed: 99, numRuns: 200 });
  assert.ok(first.failed && first.counterexamplePath);
  const replay = fc.check(property, {
    seed: 99,
    path: first.counterexamplePath,
    endOnFailure: true,
  });
  assert.ok(replay.failed);
  assert.deepEqual(replay.counterexample, first.counterexample);
});

test('the deriver is general: samples of other schemas of this folder validate', () => {
  const schemas: JsonSchema[] = [
    claimSchema,
    provisionRequestSchema,
    provisionResponseSchema,
    attributesResponseSchema,
    rpcRequestSchema,
    serverRpcCallSchema,
    firmwareQuerySchema,
    longPollQuerySchema,
    telemetrySchema,
    clientAttributesSchema,
    { type: 'object', properties: { ts: {}, values: {} }, not: { required: ['ts', 'values'] } },
    {
      oneOf: [
        { type: 'integer', minimum: 0, maximum: 10 },
        { type: 'integer', minimum: 5, maximum: 20 },
      ],
    },
    {
      type: 'array',
      items: { enum: ['a', 'b', 'c'] },
      uniqueItems: true,
      minItems: 1,
      maxItems: 3,
    },
    { type: 'string', minLength: 2, maxLength: 4 },
    { type: 'number', exclusiveMinimum: 0, maximum: 1 },
    { type: 'object', minProperties: 2, maxProperties: 3 },
  ];
  for (const schema of schemas) {
    fc.assert(
      fc.property(arbitraryFromSchema(schema), (value) => isValid(schema, value)),
      { numRuns: 200 },
    );
  }
});

test('the deriver refuses keywords it does not understand instead of guessing', () => {
  assert.throws(
    () => arbitraryFromSchema({ type: 'string', format: 'uri' }),
    UnsupportedSchemaError,
  );
  assert.throws(() => arbitraryFromSchema({ allOf: [{ type: 'string' }] }), UnsupportedSchemaError);
});

test('the three payload parts split the valid payloads: each payload is in exactly one, each part draws only its own', () => {
  // which part a payload belongs to, by what it holds (schemas/arbitrary/payloads.ts payloadPart)
  const partOf = (payload: ValidPayload) => {
    if (hasStringValue(payload)) return 'strings';
    const onlyBooleansAndLongs = payload.expected.every(
      (entry) => entry.value.type === 'BOOLEAN' || entry.value.type === 'LONG',
    );
    return onlyBooleansAndLongs && !hasLateTs(payload) && !storesNothingFor(payload)
      ? 'booleans-and-longs'
      : 'doubles-or-json';
  };
  for (const form of ['object', 'array', 'timestamped'] as const) {
    const of = (values: Parameters<typeof validTelemetry>[1]) => validTelemetry(form, values);
    for (const part of ['booleans-and-longs', 'doubles-or-json', 'strings'] as const)
      for (const payload of fc.sample(payloadPart(of, part), { numRuns: 40, seed: 7 }))
        assert.equal(partOf(payload), part, `${form} ${part}: ${payload.body}`);
  }
  // every part is drawn from the whole: the full arbitrary yields payloads of each part
  const seen = new Set(
    fc.sample(validTelemetry('timestamped'), { numRuns: 300, seed: 11 }).map(partOf),
  );
  assert.deepEqual([...seen].sort(), ['booleans-and-longs', 'doubles-or-json', 'strings']);
});
