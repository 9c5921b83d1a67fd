/**
 * The step definitions take cucumber's support functions from steps/support/cucumber.ts, never from
 * `@cucumber/cucumber` itself: its index loads cucumber's CLI, API and formatters, some 205 modules
 * and 0.1 CPU-s in every worker of a parallel run that uses none of them (bench/README.md "A
 * compiled run's CPU by process and phase"). A failure names each file and line.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { ROOT } from '../support/children';

/** An import or export of cucumber's index (its subpaths, `/api`, `/lib/...`, are not it). */
const CUCUMBER_INDEX = /\bfrom\s+'@cucumber\/cucumber'|\brequire\('@cucumber\/cucumber'\)/;

function indexImports(folder: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(folder, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const file = join(entry.parentPath, entry.name);
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, index) => {
        if (CUCUMBER_INDEX.test(line)) found.push(`${relative(ROOT, file)}:${index + 1}`);
      });
  }
  return found;
}

test("no step definition imports cucumber's index", () => {
  assert.deepEqual(indexImports(join(ROOT, 'steps')), []);
});

test('the rule sees an import of the index, and only of the index', () => {
  assert.ok(CUCUMBER_INDEX.test("import { Given } from '@cucumber/cucumber';"));
  assert.ok(CUCUMBER_INDEX.test("const cucumber = require('@cucumber/cucumber');"));
  assert.ok(!CUCUMBER_INDEX.test("import { runCucumber } from '@cucumber/cucumber/api';"));
  assert.ok(
    !CUCUMBER_INDEX.test(
      "import builder from '@cucumber/cucumber/lib/support_code_library_builder/index';",
    ),
  );
});
