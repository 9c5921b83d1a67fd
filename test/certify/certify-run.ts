/**
 * Runs `iotc certify <args>` as a child process (the real command, real sockets) in a report directory of its own
 * and reads its reports back: the exit code, the output, the verdict per requirement and the report files' text.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT, exitOf, spawnIotc } from '../support/children';

/** A test client under test/certify/, run by node with ts-node as `--exec` runs it. */
export function testClient(file: string): string {
  return `"${process.execPath}" -r ts-node/register/transpile-only "${join(ROOT, 'test', 'certify', file)}"`;
}

export interface Certified {
  code: number | null;
  output: string;
  verdicts: Record<string, string>;
  report: {
    verdict: string;
    requirements: Array<{ id: string; verdict: string; reason?: string; scenarios: unknown[] }>;
  };
  /** conformance.json, conformance.html and junit.xml, one after the other. */
  files: string;
}

export async function certify(
  args: string[],
  exec: string,
  env: Record<string, string>,
): Promise<Certified> {
  const reports = mkdtempSync(join(tmpdir(), 'iotc-certify-'));
  try {
    const child = spawnIotc(['certify', ...args, '--exec', exec, '--reports', reports], {
      env: { ...process.env, TS_NODE_PROJECT: join(ROOT, 'tsconfig.json'), ...env },
    });
    const { code, output } = await exitOf(child);
    const text = readFileSync(join(reports, 'conformance.json'), 'utf8');
    const report = JSON.parse(text) as Certified['report'];
    const verdicts = Object.fromEntries(report.requirements.map((r) => [r.id, r.verdict]));
    const files = ['conformance.html', 'junit.xml']
      .map((file) => readFileSync(join(reports, file), 'utf8'))
      .join('\n');
    return { code, output, verdicts, report, files: `${text}\n${files}` };
  } finally {
    rmSync(reports, { recursive: true, force: true });
  }
}

/** A planted client fault: its name, the requirement it must fail, and other verdicts it changes on the way. */
export type PlantedFault = [fault: string, requirement: string, also?: Record<string, string>];

/**
 * One test per planted fault of a test client: certified with IOTC_TEST_CLIENT_FAULT set, it must fail exactly its
 * requirement (exit 1, NOT CONFORMANT) and leave every other verdict as the clean client's. The late reply waits
 * twice the RPC timeout after the request arrived, so it is late on any machine.
 */
export function faultTests(
  args: string[],
  exec: string,
  clean: Record<string, string>,
  faults: readonly PlantedFault[],
): void {
  for (const [fault, requirement, also] of faults)
    test(`the client fault ${fault} fails ${requirement} and nothing else`, async () => {
      const result = await certify(
        [...args, '--rpc-timeout-ms', fault === 'late' ? '2000' : '5000'],
        exec,
        { IOTC_TEST_CLIENT_FAULT: fault, IOTC_TEST_CLIENT_LATE_MS: '4000' },
      );
      assert.equal(result.code, 1, result.output);
      assert.deepEqual(result.verdicts, { ...clean, ...also, [requirement]: 'FAIL' });
      assert.equal(result.report.verdict, 'NOT CONFORMANT');
    });
}
