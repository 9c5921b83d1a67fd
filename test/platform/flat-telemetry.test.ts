/**
 * The one-pass reading of flat telemetry (payloads.ts flatTelemetry, lib/kv/values.ts
 * readFlatMembers) against the full way it stands in for (JSON.parse, the schema check of
 * schemas/, the lossless re-read: parseValid): whenever it reads a text, the full way accepts the
 * same text and gives the same members in the same order, typed alike, in every quirks mode. Texts: the
 * schemas' arbitraries (valid and malformed telemetry of every form) and flat objects made of
 * tokens that are JSON or nearly (whitespace JSON.parse refuses, number lexemes it refuses,
 * escapes, control characters, repeated keys, `ts` with `values`, keys that are array indexes).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { LosslessNumber } from 'lossless-json';
import { flatTelemetry, parseValid } from '../../simulators/platform/core/payloads';
import { NO_QUIRKS, QUIRKS_MODES, type Quirks } from '../../simulators/platform/quirks';
import { acceptedTelemetrySchema } from '../../schemas';
import { typedValueOf } from '../../lib/kv/values';
import { keyArbitrary, malformedTelemetry, validTelemetry } from '../../schemas/arbitrary';

const MODES: Quirks[] = [NO_QUIRKS, ...Object.values(QUIRKS_MODES)];

/** Checks one text in every mode; true when the one-pass reading took it. */
function sameAsFullWay(text: string): boolean {
  let read = false;
  for (const quirks of MODES) {
    const members = flatTelemetry(text, quirks);
    if (members === undefined) continue;
    read = true;
    let document: unknown;
    assert.doesNotThrow(
      () => {
        document = parseValid(text, acceptedTelemetrySchema, 'telemetry', quirks);
      },
      `the full way refuses ${JSON.stringify(text)}`,
    );
    // as the full way's typing reads the tree: typedValueOf, and a DOUBLE's lexeme for the quirks
    const expected = Object.entries(document as object).map(([key, value]) => {
      const typed = typedValueOf(value);
      return [key, typed, typed?.type === 'DOUBLE' ? (value as LosslessNumber).value : undefined];
    });
    assert.deepEqual(
      members.map(([key, typed, lexeme]) => [key, typed, lexeme]),
      expected,
      JSON.stringify(text),
    );
  }
  return read;
}

const space = fc.constantFrom('', '', ' ', '\t', '\n', '\r', '\u00a0', '\f', '\v', '\ufeff');

const keyToken = fc.oneof(
  keyArbitrary().map((key) => JSON.stringify(key)),
  fc.constantFrom(
    '"ts"',
    '"values"',
    '"__proto__"',
    '"0"',
    '"12"',
    '"1a"',
    '""',
    '"a\\"b"',
    '"a\\u0041"',
    '"tab\there"',
    '"é€😀"',
    'bare',
    "'single'",
    '"open',
  ),
);

const numberToken = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((value) => JSON.stringify(value)),
  fc.bigInt().map((value) => value.toString()),
  fc.constantFrom(
    '0',
    '-0',
    '-0.0',
    '01',
    '-01',
    '1.',
    '.5',
    '-',
    '--1',
    '+1',
    '1e5',
    '1E+2',
    '2.5e-3',
    '1.0',
    '9223372036854775807',
    '9223372036854775808',
    `1${'0'.repeat(299)}`,
    `1${'0'.repeat(300)}`,
    `1${'0'.repeat(400)}`,
    `0.${'1'.repeat(400)}`,
    'NaN',
    'Infinity',
    '0x10',
  ),
);

const valueToken = fc.oneof(
  numberToken,
  fc.string().map((text) => JSON.stringify(text)),
  fc.string({ unit: 'binary' }).map((text) => `"${text.replace(/["\\]/g, '')}"`),
  fc.constantFrom('true', 'false', 'null', 'tru', 'falsey', 'True', '{}', '[]', '[1]', '{"a":1}'),
  fc.constantFrom('"tab\there"', '"line\nbreak"', '"nul\u0000"', '"\u001f"', '"del\u007f"'),
);

const member = fc
  .tuple(space, keyToken, space, fc.constantFrom(':', ':', ':', ''), space, valueToken, space)
  .map((parts) => parts.join(''));

/** Objects made of those tokens, with a stray comma or a missing brace now and then. */
const flatText = fc
  .tuple(
    space,
    fc.constantFrom('{', '{', '{', '['),
    fc.array(member, { maxLength: 6 }),
    fc.constantFrom(',', ',', ',', ', ', ',,'),
    fc.constantFrom('}', '}', '}', '', '},', '} x'),
    space,
  )
  .map(([before, open, members, comma, close, after]) =>
    [before, open, members.join(comma), close, after].join(''),
  );

test('the one-pass reading takes the common body, and gives what the full way gives', () => {
  assert.ok(sameAsFullWay('{"temperature":21.5,"humidity":48,"active":true,"status":"ok"}'));
  assert.ok(sameAsFullWay(' {\n\t"a" : -0.5 ,"b":"x y", "c": false }\r\n'));
  assert.ok(sameAsFullWay('{}'));
  assert.ok(sameAsFullWay(`{"big":9223372036854775808,"k":1${'0'.repeat(299)}}`));
  // each of these is left to the full way (refused there, or read there for another reason)
  for (const text of [
    '{"ts":1,"values":{}}',
    '{"a":1,"a":2}',
    '{"1":1,"b":2}',
    '{"a":1e3}',
    '{"a":"\\n"}',
    '{"a":"x\ty"}',
    '{"a\u0001":1}',
    '{"a":null}',
    '{"a":{"b":1}}',
    '{"a":1,}',
    '{"a":01}',
    '\ufeff{"a":1}',
    `{"a":1${'0'.repeat(300)}}`,
  ])
    assert.equal(sameAsFullWay(text), false, text);
});

test('property: on the schemas’ telemetry, valid and malformed, it agrees with the full way', () => {
  fc.assert(
    fc.property(
      fc.oneof(
        validTelemetry().map((payload) => payload.body),
        malformedTelemetry().map((payload) => payload.body),
      ),
      (text) => {
        sameAsFullWay(text);
      },
    ),
    { numRuns: 2000, seed: 29 },
  );
  // the positive case: the object form of the arbitraries is read in one pass often
  const taken = fc
    .sample(validTelemetry('object', { types: ['STRING', 'BOOLEAN', 'LONG', 'DOUBLE'] }), {
      numRuns: 500,
      seed: 5,
    })
    .filter((payload) => sameAsFullWay(payload.body)).length;
  assert.ok(taken > 100, `only ${taken} of 500 flat objects were read in one pass`);
});

test('property: on objects of tokens that are JSON or nearly, it agrees with the full way', () => {
  let taken = 0;
  fc.assert(
    fc.property(flatText, (text) => {
      if (sameAsFullWay(text)) taken++;
    }),
    { numRuns: 20_000, seed: 31 },
  );
  assert.ok(taken > 200, `only ${taken} of 20,000 texts were read in one pass`);
});
