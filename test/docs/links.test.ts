/**
 * The documentation's links and citations lead somewhere: every relative link of README.md and
 * docs/ (and the other Markdown pages of the repository) names a file that exists, and every
 * document the code, the catalogue and the reports cite is in the repository and in the published
 * package (the specification and the ThingsBoard facts the project relies on are its own pages in
 * docs/reference/, never a path outside the clone).
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { packedFiles } from '../support/packed-files';

const ROOT = join(__dirname, '..', '..');
const SKIP = new Set(['node_modules', 'dist', 'reports', '.git', '.iotc']);

function files(dir: string, keep: (name: string) => boolean): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (SKIP.has(entry.name) || entry.name.startsWith('.')) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return files(path, keep);
    return keep(entry.name) ? [path] : [];
  });
}

/** The Markdown pages of the repository, docs/ and README.md among them. */
const pages = files(ROOT, (name) => name.endsWith('.md'));

test('every relative link of the Markdown pages names a file that exists', () => {
  assert.ok(pages.some((page) => page.endsWith(join('docs', 'README.md'))));
  const broken: string[] = [];
  for (const page of pages) {
    const text = readFileSync(page, 'utf8').replace(/```[\s\S]*?```/g, '');
    for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1]!;
      if (/^[a-z]+:/i.test(target) || target.startsWith('#')) continue;
      const path = decodeURIComponent(target.split('#')[0]!);
      if (!existsSync(resolve(dirname(page), path)))
        broken.push(`${relative(ROOT, page)} → ${target}`);
    }
  }
  assert.deepEqual(broken, [], 'links to missing files');
});

/**
 * Names of documents that exist only outside the clone (the project brief's specification and
 * facts).
 */
const OUTSIDE = /(?:\.\.\/)*shared\/(?:spec|real-targets)\//;
/** A citation of a document: a path ending in .md (optionally with a section, `§4.3`). */
const CITED = /(?<![\w/.-])((?:[\w.-]+\/)*[\w.-]+\.md)\b/g;
const SPEC_NAMES =
  /^(?:interfaces|[\w-]+-facts|thingsboard-4\.3|tb-gateway-3\.8|thingsboard-python-sdk)\.md$/;

function sources(): string[] {
  const code = [
    'src',
    'lib',
    'simulators',
    'steps',
    'schemas',
    'features',
    'faults',
    'load',
    'bin',
    'bench',
  ];
  return [
    ...code.flatMap((dir) =>
      files(join(ROOT, dir), (name) => /\.(ts|js|json|feature|py|md)$/.test(name)),
    ),
    ...pages.filter((page) => !page.includes(`${join(ROOT, 'test')}`)),
  ];
}

test('no file cites a document outside the clone, nor the specification or its facts by a bare name', () => {
  const wrong: string[] = [];
  for (const file of sources()) {
    // a link's label is no citation; its target is (and is checked by the test above)
    const text = readFileSync(file, 'utf8').replace(/\[[^\]]*\]\(([^)\s]*)\)/g, '($1)');
    if (OUTSIDE.test(text)) wrong.push(`${relative(ROOT, file)}: ${text.match(OUTSIDE)![0]}`);
    for (const match of text.matchAll(CITED)) {
      const cited = match[1]!;
      if (cited.includes('/')) continue;
      // a Markdown page may cite its neighbours by name (a relative link)
      if (file.endsWith('.md') && existsSync(join(dirname(file), cited))) continue;
      if (SPEC_NAMES.test(cited)) wrong.push(`${relative(ROOT, file)}: ${cited}`);
    }
  }
  assert.deepEqual(
    [...new Set(wrong)],
    [],
    'cite docs/reference/<page> (in the clone and the package) instead',
  );
});

test('every document the catalogue, the reports and the code cite exists and ships in the package', {
  timeout: 120_000,
}, () => {
  const packaged = new Set(packedFiles());
  const catalogue = JSON.parse(
    readFileSync(join(ROOT, 'features', 'requirements.json'), 'utf8'),
  ) as {
    source: string;
    requirements: { note?: string; source?: string }[];
  };
  const citing: { where: string; text: string }[] = [
    { where: 'features/requirements.json source', text: catalogue.source },
    ...catalogue.requirements.map((r, i) => ({
      where: `features/requirements.json #${i}`,
      text: `${r.note ?? ''} ${r.source ?? ''}`,
    })),
    ...files(join(ROOT, 'src'), (name) => name.endsWith('.ts')).map((file) => ({
      where: relative(ROOT, file),
      text: readFileSync(file, 'utf8'),
    })),
    ...files(join(ROOT, 'simulators'), (name) => name.endsWith('.ts')).map((file) => ({
      where: relative(ROOT, file),
      text: readFileSync(file, 'utf8'),
    })),
  ];
  const problems: string[] = [];
  let docs = 0;
  for (const { where, text } of citing)
    for (const match of text.matchAll(CITED)) {
      const cited = match[1]!;
      if (!cited.startsWith('docs/')) continue;
      docs++;
      if (!existsSync(join(ROOT, cited))) problems.push(`${where}: ${cited} does not exist`);
      else if (!packaged.has(cited)) problems.push(`${where}: ${cited} is not in the package`);
    }
  assert.ok(docs > 10, 'the catalogue and the code cite docs/ pages');
  assert.ok(catalogue.source.startsWith('docs/'), 'the catalogue names its specification page');
  assert.deepEqual([...new Set(problems)], []);
});

test('README.md stays an entry point: at most 200 lines, the rest lives in docs/', () => {
  const lines = readFileSync(join(ROOT, 'README.md'), 'utf8').trimEnd().split('\n').length;
  assert.ok(lines <= 200, `README.md has ${lines} lines: move the detail to a page of docs/`);
});
