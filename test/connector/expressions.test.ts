/**
 * The one ${...} expression engine: parsing, paths, typed and composite results, None, rendering
 * modes.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  evaluate,
  evaluateText,
  ExpressionSyntaxError,
  jsonFragment,
  parseTemplate,
  urlComponent,
} from '../../lib/expressions';

describe('expressions', () => {
  const data = {
    name: 'SN-1',
    temp: 25.5,
    flag: false,
    params: { field: 'x', list: [{ id: 7 }] },
    'a.b': 'dotted',
    nothing: null,
  };

  it('gives a single placeholder its value with its type', () => {
    assert.equal(evaluate('${temp}', data), 25.5);
    assert.equal(evaluate('${flag}', data), false);
    assert.deepEqual(evaluate('${params}', data), data.params);
  });

  it('reads nested paths and array indexes, and a member named like a path first', () => {
    assert.equal(evaluate('${params.field}', data), 'x');
    assert.equal(evaluate('${params.list[0].id}', data), 7);
    assert.equal(evaluate('${a.b}', data), 'dotted');
  });

  it('builds text from composites and constants', () => {
    assert.equal(evaluate('Device ${name}', data), 'Device SN-1');
    assert.equal(evaluate('${name}:${temp}', data), 'SN-1:25.5');
    assert.equal(evaluate('constant', data), 'constant');
  });

  it('makes a missing or null value None, or keeps the placeholder when asked', () => {
    assert.equal(evaluate('${missing}', data), undefined);
    assert.equal(evaluate('${nothing}', data), undefined);
    assert.equal(evaluate('${name}:${missing}', data), undefined);
    assert.equal(evaluateText('/x/${missing}', data, { missing: 'keep' }), '/x/${missing}');
  });

  it('lets variables win over data and renders for URLs and JSON templates', () => {
    assert.equal(
      evaluateText('/d/${deviceName}/${params.field}', data, {
        variables: { deviceName: 'Device SN 1/2', params: { field: 'a b' } },
        render: urlComponent,
      }),
      '/d/Device%20SN%201%2F2/a%20b',
    );
    assert.equal(
      evaluateText(
        '{"${k}": "${v}", "n": ${n}}',
        {},
        { variables: { k: 'key', v: 'say "hi"', n: 2.5 }, render: jsonFragment },
      ),
      '{"key": "say \\"hi\\"", "n": 2.5}',
    );
  });

  it('refuses malformed templates with their position', () => {
    for (const bad of ['${name', '${}', '${a.}', '${.a}', '${a..b}', 'x ${a${b}}']) {
      assert.throws(() => parseTemplate(bad), ExpressionSyntaxError, bad);
    }
  });
});
