/**
 * What the two deviation tests share (test/integration/deviations-platform.test.ts and
 * deviations-connector.test.ts, one file each so that the test runner runs them side by side, and
 * each split in two, its matching profile and its `-undeclared` file): a run of `iotc run` against
 * a quirks target and its conformance report, and a built-in profile stripped of its declarations.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { iotc, ROOT } from './iotc';
import { HARNESS_STARVED, INCONCLUSIVE_PREFIX } from '../../steps/support/timing';

export const DEVICE_API_TAGS = '@http-device-api or @key-value-data or @mqtt-gateway-api';

export interface Report {
  requirements: Array<{
    id: string;
    interface: string;
    testable: boolean;
    verdict: string;
    reason?: string;
    scenarios?: Array<{ status: string; error?: string }>;
  }>;
}

/**
 * A requirement left INCONCLUSIVE only because the harness (or the target's process beside it) was
 * starved: every undecided scenario's error opens so (steps/support/timing.ts). On a busy machine
 * that is no verdict about the quirks mode, so the deviation tests neither count it as a difference
 * nor as its absence.
 */
export function starved(requirement: Report['requirements'][number]): boolean {
  const undecided = (requirement.scenarios ?? []).filter(
    (scenario) => scenario.status === 'INCONCLUSIVE',
  );
  return (
    requirement.verdict === 'INCONCLUSIVE' &&
    undecided.length > 0 &&
    undecided.every((scenario) =>
      (scenario.error ?? '').includes(`${INCONCLUSIVE_PREFIX} ${HARNESS_STARVED}`),
    )
  );
}

export async function run(
  target: string,
  dir: string,
  features: string[] = [],
  tags = DEVICE_API_TAGS,
): Promise<{ code: number | null; report: Report; output: string }> {
  const reports = join(dir, 'reports');
  const { code, output } = await iotc(
    // two workers, not the test runner's three: these tests are about the verdicts of the deviation
    // machinery, which the coordinator decides from every scenario's result whatever worker ran it;
    // two still run the scenarios in parallel workers, and each worker is about 1.6 CPU-s of start
    // (an embedded reference of its own) in a suite bound by its CPU (bench/README.md "The own
    // tests toward 3 minutes")
    [
      'run',
      '--parallel',
      '2',
      '--target',
      target,
      '--tags',
      tags,
      '--reports',
      reports,
      ...features,
    ],
    join(dir, 'state'),
  );
  return {
    code,
    report: JSON.parse(readFileSync(join(reports, 'conformance.json'), 'utf8')) as Report,
    output,
  };
}

export const deviceApi = (report: Report) =>
  report.requirements.filter(
    (requirement) =>
      requirement.testable &&
      ['http-device-api', 'key-value-data', 'mqtt-gateway-api'].includes(requirement.interface),
  );
export const restConnector = (report: Report) =>
  report.requirements.filter(
    (requirement) => requirement.testable && requirement.interface === 'rest-connector',
  );

/** A built-in profile without its declared deviations, written into dir. */
export function withoutDeviations(profileName: string, dir: string): string {
  const profile = JSON.parse(
    readFileSync(join(ROOT, 'src', 'target', 'profiles', `${profileName}.json`), 'utf8'),
  ) as Record<string, unknown>;
  delete profile.deviationsFrom;
  const path = join(dir, 'wrong-profile.json');
  writeFileSync(
    path,
    JSON.stringify({ ...profile, name: `${profileName}-without-deviations`, deviations: {} }),
  );
  return path;
}
