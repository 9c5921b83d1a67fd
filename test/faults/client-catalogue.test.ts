/**
 * The catalogue of client faults against the requirement catalogue and the clients under test:
 * every fault names a testable requirement its client's certification judges (a gateway's: the
 * gateway ones and the device ones of its own traffic), once; every fault is switched in its client
 * and every switch is declared; the matrix's judgement of a certification (killed only when exactly
 * the fault's requirement FAILs); and a real run of the client matrix whose fault the client does
 * not plant, reported as a survivor (the kills are `npm run faults`' own, not repeated here); a
 * control that does not certify clean fails the matrix, loudly.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { faultRequirement } from '../../faults';
import {
  CLIENTS_UNDER_TEST,
  CLIENT_FAULT_CATALOGUE,
  clientFaultName,
  type ClientKind,
} from '../../faults/client-catalogue';
import { certifiedRequirements } from '../../src/certify/certified-requirements';
import { judgeClientCertification, runClientMatrix } from '../../src/faults/client-matrix';
import { summarize, type MatrixResult } from '../../src/faults/matrix';
import { matrixExitCode, matrixHtml, matrixSummary } from '../../src/faults/matrix-report';

const ROOT = join(__dirname, '..', '..');
const requirements = new Map(
  (
    JSON.parse(readFileSync(join(ROOT, 'features', 'requirements.json'), 'utf8')) as {
      requirements: Array<{ id: string; testable: boolean }>;
    }
  ).requirements.map((requirement) => [requirement.id, requirement]),
);
const CERTIFIED: Record<ClientKind, Set<string>> = {
  'http-device': judged('device', 'http'),
  'mqtt-device': judged('device', 'mqtt'),
  gateway: judged('gateway', 'mqtt'),
  'mqtt-device-tls': judged('device', 'mqtt', { tls: true }),
  'mqtt-device-long': judged('device', 'mqtt', { overTime: true }),
  'gateway-long': judged('gateway', 'mqtt', { overTime: true }),
};
function judged(
  role: 'device' | 'gateway',
  transport: 'http' | 'mqtt',
  beyond: { tls?: boolean; overTime?: boolean } = {},
): Set<string> {
  return new Set(
    certifiedRequirements(role, transport, beyond).map((requirement) => requirement.id),
  );
}

test('every client fault names a testable requirement of its client, once', () => {
  const ids = CLIENT_FAULT_CATALOGUE.map((fault) => fault.id);
  assert.equal(new Set(ids).size, ids.length, 'fault ids are unique');
  for (const fault of CLIENT_FAULT_CATALOGUE) {
    assert.match(fault.id, /^[A-Z]+(-[A-Z0-9]+)+:[a-z0-9-]+$/, fault.id);
    const requirement = requirements.get(faultRequirement(fault.id));
    assert.ok(requirement?.testable, `${fault.id}: no testable requirement`);
    assert.ok(
      CERTIFIED[fault.client].has(requirement.id),
      `${fault.id}: not a requirement the certification of ${fault.client} judges`,
    );
    assert.ok(fault.breaks.length > 10, `${fault.id} says what it breaks`);
    for (const id of Object.keys(fault.alsoChanges ?? {}))
      assert.ok(CERTIFIED[fault.client].has(id), `${fault.id} also changes ${id}`);
  }
});

test('every client fault is switched in its client, and every switch of a client is declared', () => {
  for (const [kind, client] of Object.entries(CLIENTS_UNDER_TEST) as Array<
    [ClientKind, (typeof CLIENTS_UNDER_TEST)[ClientKind]]
  >) {
    const source = readFileSync(join(ROOT, client.file), 'utf8');
    const switched = new Set([...source.matchAll(/fault === '([a-z0-9-]+)'/g)].map((m) => m[1]));
    const declared = new Set(
      CLIENT_FAULT_CATALOGUE.filter((fault) => fault.client === kind).map((fault) =>
        clientFaultName(fault.id),
      ),
    );
    assert.deepEqual([...switched].sort(), [...declared].sort(), client.file);
  }
});

test('a client fault is killed only when exactly its requirement FAILs and the client exits 1', () => {
  const fault = CLIENT_FAULT_CATALOGUE.find((entry) => entry.id === 'HTTP-DEV-05:wrong-id')!;
  const control = { 'HTTP-DEV-04': 'PASS', 'HTTP-DEV-05': 'PASS', 'HTTP-DEV-06': 'PASS' };
  const judge = (verdicts: Record<string, string>, code = 1) =>
    judgeClientCertification(fault, control, { code, verdicts });
  // the allowed change: no reply carried the request's id, so its timing was never shown
  const expected = { 'HTTP-DEV-04': 'PASS', 'HTTP-DEV-05': 'FAIL', 'HTTP-DEV-06': 'NOT TESTED' };
  assert.deepEqual(judge(expected), { killed: true });
  assert.deepEqual(judge({ ...expected, 'HTTP-DEV-05': 'PASS' }, 0), {
    killed: false,
    reason: 'HTTP-DEV-05 is PASS, expected FAIL',
  });
  // one more requirement failing is not this fault's kill
  assert.deepEqual(judge({ ...expected, 'HTTP-DEV-04': 'FAIL' }), {
    killed: false,
    reason: 'HTTP-DEV-04 is FAIL, expected PASS',
  });
  // the allowed change is the one named: the timing requirement still PASSing is a difference too
  assert.equal(judge({ ...expected, 'HTTP-DEV-06': 'PASS' }).killed, false);
  assert.match(
    judge({ 'HTTP-DEV-05': 'FAIL', 'HTTP-DEV-06': 'NOT TESTED' }).reason ?? '',
    /HTTP-DEV-04 is absent/,
  );
  assert.deepEqual(judge(expected, 3), {
    killed: false,
    reason: 'iotc certify exited with 3, not 1',
  });
});

test('the client matrix certifies the control first and reports a fault its client does not plant as a survivor', {
  timeout: 180_000, // a hang guard: two certifications
}, async () => {
  const lines: string[] = [];
  // the clean client knows no fault of this name: it certifies clean, so the fault survives
  const unplanted = {
    id: 'HTTP-DEV-02:not-planted',
    client: 'http-device',
    breaks: 'nothing: the client under test has no such switch',
  } as const;
  const result = await runClientMatrix([unplanted], {
    concurrency: 2,
    log: (line) => lines.push(line),
    survivorAttempts: 1,
  });
  assert.equal(result.controls.length, 1);
  assert.equal(result.controls[0]!.ok, true, result.controls[0]!.reason);
  // HTTP-DEV-01..13 and CLI-BEH-06 (no tight polling, every HTTP device session)
  assert.equal(Object.keys(result.controls[0]!.verdicts).length, 14);
  const [survivor] = result.faults;
  assert.equal(survivor!.outcome, 'survived');
  assert.equal(survivor!.verdict, 'PASS');
  assert.equal(survivor!.reason, 'HTTP-DEV-02 is PASS, expected FAIL');
  assert.equal(survivor!.client, 'http-device');
  assert.ok(
    lines.some((line) => line.startsWith('SURVIVED HTTP-DEV-02:not-planted')),
    lines.join('\n'),
  );
});

test('a clean client that does not certify makes the matrix fail and says so', () => {
  const result: MatrixResult = {
    startedAt: new Date(0).toISOString(),
    durationMs: 0,
    target: 'embedded',
    selection: { requirements: ['HTTP-DEV-02'] },
    baseline: { ok: true, requirements: 0, notPassing: [], durationMs: 0 },
    clients: [
      {
        client: 'http-device',
        ok: false,
        verdicts: { 'HTTP-DEV-02': 'FAIL' },
        reason: 'with no fault on, HTTP-DEV-02 is FAIL',
        durationMs: 0,
      },
    ],
    faults: [],
    uncovered: [],
    summary: summarize([], []),
  };
  assert.equal(matrixExitCode(result, false), 1);
  assert.match(
    matrixSummary(result, false),
    /THE CLIENT MATRIX OF http-device IS NOT MEANINGFUL: the clean client does not certify: with no fault on, HTTP-DEV-02 is FAIL/,
  );
  assert.match(matrixHtml(result), /The faults of the client http-device cannot be judged/);
});
