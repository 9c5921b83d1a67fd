import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  parseLossless,
  typedValueOf,
  typedValueToJson,
  typedValueToString,
  typedValuesEqual,
} from '../../lib/kv/values';

function typeOf(json: string) {
  return typedValueOf((parseLossless(`{"k":${json}}`) as Record<string, unknown>).k);
}

test('number lexemes decide between LONG and DOUBLE, as the platform does', () => {
  assert.deepEqual(typeOf('42'), { type: 'LONG', value: 42n });
  assert.deepEqual(typeOf('42.0'), { type: 'DOUBLE', value: 42 });
  assert.deepEqual(typeOf('1e3'), { type: 'LONG', value: 1000n });
  assert.deepEqual(typeOf('1.5e3'), { type: 'DOUBLE', value: 1500 });
  assert.deepEqual(typeOf('999999999999999999'), { type: 'LONG', value: 999999999999999999n });
  assert.deepEqual(typeOf('-999999999999999999'), { type: 'LONG', value: -999999999999999999n });
  assert.deepEqual(typeOf('9223372036854775807'), { type: 'LONG', value: 9223372036854775807n });
  assert.deepEqual(typeOf('-9223372036854775809'), {
    type: 'STRING',
    value: '-9223372036854775809',
  });
  assert.deepEqual(typeOf('9223372036854775808'), { type: 'STRING', value: '9223372036854775808' });
});

test('strings are never cast, null is not a value, objects and arrays are JSON', () => {
  assert.deepEqual(typeOf('"42"'), { type: 'STRING', value: '42' });
  assert.equal(typeOf('null'), undefined);
  assert.deepEqual(typeOf('{"a":[1,2.5,null]}'), { type: 'JSON', value: { a: [1, 2.5, null] } });
  assert.deepEqual(typeOf('true'), { type: 'BOOLEAN', value: true });
});

test('a DOUBLE serializes with a decimal point so it reads back as a DOUBLE', () => {
  const double = typeOf('42.0')!;
  assert.equal(typedValueToJson(double), '42.0');
  assert.equal(typedValueToString(double), '42.0');
  assert.ok(typedValuesEqual(typeOf(typedValueToJson(double))!, double));
  assert.equal(typedValueToJson(typeOf('-9223372036854775808')!), '-9223372036854775808');
});
