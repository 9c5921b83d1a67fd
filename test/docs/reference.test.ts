/**
 * The documentation cannot drift from the code: the generated reference pages
 * (docs/reference/cli.md, target-profile.md, errors.md, interfaces.md) are what scripts/gen-docs.ts
 * makes of the code now, cli.md lists every command and option the program has, and every error
 * class documents what its code means.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { GENERATED, cliCommands, errorCodes } from '../../scripts/gen-docs';

const ROOT = join(__dirname, '..', '..');

test('every generated reference page is up to date (npm run docs)', () => {
  for (const [file, generate] of Object.entries(GENERATED))
    assert.equal(
      readFileSync(join(ROOT, file), 'utf8'),
      generate(),
      `${file} is stale: run npm run docs and commit it`,
    );
});

test('docs/reference/cli.md lists every command and every option', () => {
  const page = readFileSync(join(ROOT, 'docs', 'reference', 'cli.md'), 'utf8');
  const commands = cliCommands();
  assert.ok(commands.length > 10, 'the program was read');
  for (const { path, options } of commands) {
    if (path === 'iotc') continue; // the program itself: --version and --help only
    const lines = page.split('\n');
    const heading = lines.findIndex((line) => /^#+ /.test(line) && line.endsWith(` \`${path}\``));
    assert.ok(heading >= 0, `cli.md has no section for the command ${path}`);
    // the command's own section runs up to the next command's heading
    const next = lines.findIndex((line, i) => i > heading && /^#+ `iotc /.test(line));
    const section = lines.slice(heading, next < 0 ? undefined : next).join('\n');
    for (const option of options)
      assert.ok(section.includes(option), `cli.md does not list ${option} of ${path}`);
  }
});

test('every IOTC_* error code has a class that says what it means', () => {
  const codes = errorCodes();
  assert.ok(codes.length > 40, 'the error classes were found');
  const undocumented = codes.filter((code) => code.meaning === '');
  assert.deepEqual(
    undocumented.map((code) => `${code.code} (${code.className}, ${code.file})`),
    [],
    'give these error classes a doc comment: it is their meaning in docs/reference/errors.md',
  );
});
