/**
 * Cucumber's match indices from the RegExp `d` flag (src/engine/native-match-indices.ts) give what
 * its polyfill gives, and a process that loads the module first has cucumber use them.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { CucumberExpression, ParameterTypeRegistry } from '@cucumber/cucumber-expressions';
import { execWithIndices, polyfillFile } from '../../src/engine/native-match-indices';
import { workerEnvironment } from '../../src/engine/worker-environment';

const ROOT = join(__dirname, '..', '..');

/**
 * The polyfill's own exec (this = the RegExp), read from its file: the module cache may hold the
 * replacement.
 */
type PolyfillExec = (this: RegExp, text: string) => RegExpExecArray | null;

const cases: [RegExp, string][] = [
  [
    /^(\d+) devices "([^"]*)" each waiting for shared attribute updates$/,
    '200 devices "poller" each waiting for shared attribute updates',
  ],
  [
    /^the (?:device|gateway) "([^"]*)" posts the claim (.+)$/,
    'the device "tracker" posts the claim {"a": [1, (2)]}',
  ],
  [/^a (b(c(d)?)?)?( e)?$/, 'a bc e'],
  [/^(?<name>[a-z]+)-(?<number>\d+)$/, 'poller-17'],
  [/^x(?<=x)([()\]]+)(?!y)$/, 'x()]'],
  [/^nothing (matches)$/, 'something else'],
  [
    new CucumberExpression('{int} updates of {string} to {word}', new ParameterTypeRegistry())
      .regexp,
    '96 updates of "x" to slow',
  ],
];

test('the match and its indices are those of the polyfill', () => {
  const file = polyfillFile();
  assert.ok(file, 'regexp-match-indices is where cucumber-expressions loads it');
  const polyfill = require(join(dirname(file), 'implementation.js')) as PolyfillExec;
  for (const [regexp, text] of cases) {
    const expected = polyfill.call(regexp, text);
    const actual = execWithIndices(regexp, text);
    assert.deepEqual(actual && [...actual], expected && [...expected], String(regexp));
    assert.deepEqual(
      actual?.indices && [...actual.indices],
      expected?.indices && [...expected.indices],
      String(regexp),
    );
  }
});

test('a process that loads the module first matches steps through it, with the arguments where they stand', () => {
  const script = `
    const { execWithIndices } = require('./src/engine/native-match-indices');
    const { CucumberExpression, ParameterTypeRegistry } = require('@cucumber/cucumber-expressions');
    const expression = new CucumberExpression('the device {string} sends {int}', new ParameterTypeRegistry());
    const [name, count] = expression.match('the device "calm" sends 12');
    const polyfill = require(require('./src/engine/native-match-indices').polyfillFile());
    console.log(JSON.stringify({ same: polyfill === execWithIndices, name: name.getValue(), count: count.getValue(), start: count.group.start }));
  `;
  const output = execFileSync(
    process.execPath,
    ['-r', 'ts-node/register/transpile-only', '-e', script],
    { cwd: ROOT, encoding: 'utf8', timeout: 60_000 },
  );
  assert.deepEqual(JSON.parse(output), { same: true, name: 'calm', count: 12, start: 24 });
});

test('compiled, a parallel run preloads the module in its workers after the options already given', async () => {
  const env = await workerEnvironment(false, { NODE_OPTIONS: '--enable-source-maps' }, true);
  assert.match(
    env.NODE_OPTIONS ?? '',
    /^--enable-source-maps --max-semi-space-size=32 --require ".*lib\/compile-cache\.js" --require ".*native-match-indices\.js" --require ".*worker-messages\.js"$/,
  );
});
