/**
 * The kill matrix engine on three faults against the embedded reference: two its requirement's
 * scenarios kill, and a known survivor made here by judging a fault with the scenarios of another
 * requirement that cannot see it (the documentation page missing, judged by AUTH-DOC-02's API
 * description scenario). The JSON the command writes is checked: outcomes, the failing step of a
 * kill, the survivor's reason, the baseline, the summary and the exit code.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runFaultMatrix } from '../../src/faults/matrix';
import { matrixExitCode, matrixHtml } from '../../src/faults/matrix-report';
import { mkdtempSync, mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  dealByRequirement,
  dealShares,
  lastFaultTimes,
  rememberFaultTimes,
} from '../../src/faults/workers';

test('the matrix kills what the scenarios see and reports a survivor with its reason', {
  timeout: 180_000, // a hang guard: three short cucumber runs and a baseline
}, async () => {
  const lines: string[] = [];
  const result = await runFaultMatrix({
    faults: ['AUTH-DOC-01:page-missing', 'AN-RES-03:date-as-number', 'AUTH-DOC-02:no-jwt-scheme'],
    judgeBy: { 'AUTH-DOC-01:page-missing': 'AUTH-DOC-02' },
    log: (line) => lines.push(line),
  });
  const json = JSON.parse(JSON.stringify(result)) as typeof result;
  assert.equal(json.baseline.ok, true, JSON.stringify(json.baseline));
  assert.deepEqual(json.baseline.notPassing, []);
  const byId = new Map(json.faults.map((fault) => [fault.id, fault]));

  const survivor = byId.get('AUTH-DOC-01:page-missing')!;
  assert.equal(survivor.outcome, 'survived');
  assert.equal(survivor.requirement, 'AUTH-DOC-02');
  assert.equal(survivor.verdict, 'PASS');
  assert.match(survivor.reason!, /AUTH-DOC-02 is PASS with the fault on/);

  const killed = byId.get('AN-RES-03:date-as-number')!;
  assert.equal(killed.outcome, 'killed');
  assert.equal(killed.verdict, 'FAIL');
  assert.match(killed.failure!.step!, /the report has a row for/);
  assert.match(killed.failure!.error!, /not a string of milliseconds/);
  assert.match(killed.failure!.location, /build-report\.feature:\d+/);

  assert.equal(byId.get('AUTH-DOC-02:no-jwt-scheme')!.outcome, 'killed');
  assert.deepEqual(
    { faults: json.summary.faults, killed: json.summary.killed, survived: json.summary.survived },
    { faults: 3, killed: 2, survived: 1 },
  );
  assert.equal(
    json.uncovered.length,
    0,
    'a list of faults says nothing about uncovered requirements',
  );
  assert.equal(matrixExitCode(json, false), 1, 'a survivor fails the matrix');
  assert.match(matrixHtml(json), /AUTH-DOC-01:page-missing/);
  assert.ok(lines.some((line) => line.startsWith('SURVIVED AUTH-DOC-01:page-missing')));
});

test('workers get whole requirements: each baseline runs only its own requirements, the faults evenly shared', () => {
  const ids = ['A-1:x', 'B-1:x', 'A-1:y', 'C-1:x', 'A-1:z', 'B-1:y', 'D-1:x'];
  const shares = dealByRequirement(ids, 2);
  assert.deepEqual(shares, [
    ['A-1:x', 'A-1:y', 'A-1:z', 'D-1:x'],
    ['B-1:x', 'C-1:x', 'B-1:y'],
  ]);
  assert.deepEqual(shares.flat().sort(), [...ids].sort(), 'every fault once');
  assert.deepEqual(dealByRequirement(ids, 8).length, 4, 'no more shares than requirements');
  assert.deepEqual(dealByRequirement([], 2), []);
});

test("with the last matrix's times, workers get whole requirements of equal time, not of equal number", () => {
  const ids = ['A-1:x', 'B-1:x', 'A-1:y', 'C-1:x', 'A-1:z', 'B-1:y', 'D-1:x'];
  // B's two faults wait out a 10 s timeout each: as long as everything else together
  const times = new Map([
    ['A-1:x', 1000],
    ['A-1:y', 1000],
    ['A-1:z', 2000],
    ['B-1:x', 10_000],
    ['B-1:y', 10_000],
    ['C-1:x', 1500],
    ['D-1:x', 1000],
  ]);
  const shares = dealByRequirement(ids, 2, times);
  assert.deepEqual(shares, [
    ['B-1:x', 'B-1:y'],
    ['A-1:x', 'A-1:y', 'C-1:x', 'A-1:z', 'D-1:x'],
  ]);
  // a fault the last matrix did not judge counts as the median of the known (1500 ms): E joins the
  // share with less time
  const withNew = dealByRequirement([...ids, 'E-1:x'], 2, times);
  assert.deepEqual(withNew[1], ['A-1:x', 'A-1:y', 'C-1:x', 'A-1:z', 'D-1:x', 'E-1:x']);
  assert.deepEqual(withNew.flat().sort(), [...ids, 'E-1:x'].sort(), 'every fault once');
});

test("a matrix's fault times are merged into the last ones, a fault not judged left out", () => {
  const root = mkdtempSync(join(tmpdir(), 'iotc-fault-times-'));
  const path = join(root, 'node_modules', '.cache', 'iotc-fault-times.json');
  rememberFaultTimes([{ id: 'A-1:x', durationMs: 1200, scenarios: 1 }], path);
  assert.deepEqual(lastFaultTimes(path), new Map(), 'no node_modules: an installed package');
  mkdirSync(join(root, 'node_modules'));
  rememberFaultTimes([{ id: 'A-1:x', durationMs: 1200, scenarios: 1 }], path);
  rememberFaultTimes(
    [
      { id: 'B-1:x', durationMs: 10_400.4, scenarios: 2 },
      { id: 'C-1:x', durationMs: 0, scenarios: 0 },
    ],
    path,
  );
  assert.deepEqual(JSON.parse(readFileSync(path, 'utf8')), { 'A-1:x': 1200, 'B-1:x': 10_400 });
  assert.deepEqual(
    [...lastFaultTimes(path)],
    [
      ['A-1:x', 1200],
      ['B-1:x', 10_400],
    ],
  );
});

test('workers that start later, in the slots the clients free, get the shares that end with the first ones', () => {
  const ids = ['A-1:x', 'B-1:x', 'A-1:y', 'C-1:x', 'A-1:z', 'B-1:y', 'D-1:x'];
  const times = new Map([
    ['A-1:x', 3000],
    ['A-1:y', 3000],
    ['A-1:z', 3000],
    ['B-1:x', 4000],
    ['B-1:y', 4000],
    ['C-1:x', 5000],
    ['D-1:x', 2000],
  ]);
  // two workers at once, a third once the clients end after 6 s: A (9 s) and B (8 s) start now, C
  // (5 s) and D (2 s) later, or last on the one that ends first
  assert.deepEqual(dealShares(ids, [0, 0, 6000], times), [
    ['A-1:x', 'A-1:y', 'A-1:z'],
    ['B-1:x', 'B-1:y', 'D-1:x'],
    ['C-1:x'],
  ]);
  // a later worker nothing is left for gets an empty share (it never starts)
  assert.deepEqual(dealShares(['A-1:x'], [0, 0, 6000], times), [['A-1:x'], [], []]);
});
