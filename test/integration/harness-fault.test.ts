/**
 * The harness's own fault against the asynchronous twin: with its readiness proofs skipped
 * (IOTC_HARNESS_FAULT= no-readiness-proof), the suite sends the update under test right after the
 * SUBACK or the gateway connect's PUBACK, as it did before it proved its effects; the twin, like
 * ThingsBoard, registers the session later and drops that update, so the scenarios FAIL there. This
 * is what makes CI catch a scenario that assumes a synchronous platform, before a user's staging
 * ThingsBoard does. Without the fault, the same features PASS on the same twin.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HARNESS_FAULT_CATALOGUE } from '../../faults/client-catalogue';
import { faultRequirement } from '../../faults';
import { exitOf, ROOT, spawnIotc } from '../support/children';
import type { Report } from '../support/deviations';

async function runWith(
  target: string,
  fault: string | undefined,
  features: readonly string[],
): Promise<{ code: number | null; report: Report; output: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'iotc-harness-fault-'));
  const reports = join(dir, 'reports');
  const env: NodeJS.ProcessEnv = { ...process.env, IOTC_STATE_DIR: join(dir, 'state') };
  delete env.IOTC_HARNESS_FAULT;
  if (fault) env.IOTC_HARNESS_FAULT = fault;
  const { code, output } = await exitOf(
    spawnIotc(
      [
        'run',
        '--target',
        target,
        '--reports',
        reports,
        ...features.map((feature) => join(ROOT, feature)),
      ],
      { env },
    ),
  );
  try {
    const report = JSON.parse(readFileSync(join(reports, 'conformance.json'), 'utf8')) as Report;
    return { code, report, output };
  } finally {
    // each run left its folder (reports, journal) in the temporary directory for good
    rmSync(dir, { recursive: true, force: true });
  }
}

for (const fault of HARNESS_FAULT_CATALOGUE) {
  const name = fault.id.slice(fault.id.indexOf(':') + 1);
  test(`harness fault ${fault.id}: killed by the asynchronous twin, and its features PASS without it`, {
    timeout: 900_000, // a hang guard only: about 50 s each run here when quiet
  }, async (t) => {
    const expected = new Set([faultRequirement(fault.id), ...Object.keys(fault.alsoChanges ?? {})]);
    /** What each broken run FAILed, in order. */
    const survivors: string[] = [];
    const judge = (broken: Awaited<ReturnType<typeof runWith>>): boolean => {
      assert.equal(broken.code, 1, broken.output.slice(-3000));
      const failed = broken.report.requirements
        .filter((requirement) => requirement.verdict === 'FAIL')
        .map((requirement) => requirement.id);
      assert.deepEqual(
        failed.filter((id) => !expected.has(id)),
        [],
        'requirements the fault does not touch FAILed',
      );
      survivors.push(failed.join(', ') || 'nothing');
      return failed.includes(faultRequirement(fault.id));
    };
    // the first two runs side by side: each has its own state folder and its own embedded twin,
    // so neither sees the other
    const [broken, sound] = await Promise.all([
      runWith(fault.target, name, fault.features),
      runWith(fault.target, undefined, fault.features),
    ]);
    assert.equal(sound.code, 0, `${whatFailed(sound)}\n${sound.output.slice(-3000)}`);
    // the kill matrix's rule (docs/how-to/kill-matrix.md): a fault that survives is judged again,
    // up to five runs in all, and one killed only on a later run is RACY. This one is racy by
    // nature: the update under test races the twin's session registration (0-300 ms) against the
    // harness's own steps, which a busy machine slows (real ThingsBoard kills it by chance too)
    let killed = judge(broken);
    for (let run = 2; !killed && run <= 5; run++)
      killed = judge(await runWith(fault.target, name, fault.features));
    assert.ok(killed, `${fault.id} survived five runs: FAIL only ${survivors.join('; ')}`);
    if (survivors.length > 1)
      t.diagnostic(`RACY: ${fault.id} killed on run ${survivors.length} of 5`);
  });
}

/**
 * What a run's report FAILed, with each failed scenario's error, and the twin's seed (to replay it):
 * the tail of the output alone showed only the summary of a run whose reports are gone.
 */
function whatFailed({ report, output }: { report: Report; output: string }): string {
  const seed = /asynchronous, seed (\d+)/.exec(output)?.[0] ?? 'no seed printed';
  const failed = report.requirements
    .filter((requirement) => requirement.verdict === 'FAIL')
    .map((requirement) => {
      const errors = (requirement.scenarios ?? [])
        .filter((scenario) => scenario.error)
        .map((scenario) => `  ${scenario.error!.split('\n').slice(0, 4).join(' | ')}`);
      return [`FAIL ${requirement.id}`, ...errors].join('\n');
    });
  return [seed, ...failed].join('\n');
}
