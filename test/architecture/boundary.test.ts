/**
 * The layering rules, enforced rather than remembered (issue 30 item 5), over the static import
 * graph of the sources (test/architecture/import-graph.ts; type-only imports count too: they couple
 * the code all the same):
 *  - the socket boundary: steps, drivers and load profiles import no reference target (the
 *    platform, the REST connector, the analytics service) — they reach a target through its
 *    sockets, as they would a real one; certify, which runs a client against the reference
 *    platform, imports only its public entry (simulators/platform/index.ts);
 *  - lib/ is the bottom layer: it imports nothing of the project outside lib/;
 *  - the command line is the top: nothing but itself, the tests, scripts and benchmarks imports
 *    src/cli/;
 *  - no import cycle.
 * A failure names the file and line of each offending import.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ROOT } from '../support/children';
import { type ImportEdge, importCycles, importGraph } from './import-graph';

const edges = importGraph(ROOT);

/** The reference targets: their code runs on the other side of the socket. */
const REFERENCE = /^simulators\/(platform|connector|analytics)\//;
/** Code that plays the client's side against any target, reference or real. */
const CLIENT_SIDE = /^(steps|load|simulators\/(device|gateway|connector-client|external-api))\//;
const CERTIFY = /^src\/certify\//;
/** The reference platform's public entry, which certify starts its sessions with. */
const PLATFORM_ENTRY = 'simulators/platform/index.ts';

/** Who may import the command line. */
const ABOVE_CLI = /^(src\/cli|test|scripts|bench)\//;

function where(edge: ImportEdge): string {
  return `${edge.from}:${edge.line} imports ${edge.to}${edge.typeOnly ? ' (type only)' : ''}`;
}

test('the graph is read: every layer has imports (a parser that read nothing would pass every rule)', () => {
  assert.ok(edges.length > 1000, `only ${edges.length} imports found`);
  for (const folder of ['steps/', 'load/', 'src/certify/', 'lib/', 'simulators/platform/'])
    assert.ok(
      edges.some((edge) => edge.from.startsWith(folder)),
      `no import read from ${folder}`,
    );
  // the rules below would see a violation: a known reference import exists in the graph
  assert.ok(
    edges.some((edge) => CERTIFY.test(edge.from) && edge.to === PLATFORM_ENTRY),
    'certify starts the reference platform through its entry',
  );
});

test('steps, drivers and load profiles import no reference target', () => {
  const crossing = edges.filter((edge) => CLIENT_SIDE.test(edge.from) && REFERENCE.test(edge.to));
  assert.deepEqual(crossing.map(where), []);
});

test("certify imports only the reference platform's entry, never a reference target's insides", () => {
  const crossing = edges.filter(
    (edge) => CERTIFY.test(edge.from) && REFERENCE.test(edge.to) && edge.to !== PLATFORM_ENTRY,
  );
  assert.deepEqual(crossing.map(where), []);
});

test('lib/ imports nothing of the project above it', () => {
  const upward = edges.filter(
    (edge) => edge.from.startsWith('lib/') && !edge.to.startsWith('lib/'),
  );
  assert.deepEqual(upward.map(where), []);
});

test('only the command line itself, tests, scripts and benchmarks import src/cli/', () => {
  const upward = edges.filter(
    (edge) => edge.to.startsWith('src/cli/') && !ABOVE_CLI.test(edge.from),
  );
  assert.deepEqual(upward.map(where), []);
});

test('no import cycle', () => {
  assert.deepEqual(
    importCycles(edges).map((cycle) => cycle.join(' <-> ')),
    [],
  );
});

test('the rules catch what they are for (a planted violation of each)', () => {
  const planted: ImportEdge[] = [
    { from: 'steps/x.steps.ts', to: 'simulators/platform/core/store.ts', typeOnly: false, line: 1 },
    { from: 'lib/x.ts', to: 'faults/index.ts', typeOnly: true, line: 1 },
    { from: 'src/a.ts', to: 'src/b.ts', typeOnly: false, line: 1 },
    { from: 'src/b.ts', to: 'src/a.ts', typeOnly: true, line: 1 },
  ];
  assert.ok(REFERENCE.test(planted[0].to) && CLIENT_SIDE.test(planted[0].from));
  assert.ok(planted[1].from.startsWith('lib/') && !planted[1].to.startsWith('lib/'));
  assert.deepEqual(importCycles(planted), [['src/a.ts', 'src/b.ts']]);
});
