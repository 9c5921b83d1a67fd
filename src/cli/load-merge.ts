/**
 * `iotc load merge <dirs...>`: every profile's shard reports found in the directories, merged into
 * one report each.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { exitCodeOf, verdictLine } from '../../load/contract';
import type { LoadReport } from '../../load/load-report';
import { LoadMergeError, mergeLoadReports } from '../../load/merge';
import { loadProfileNamed } from '../../load/profiles';
import { resultLines } from '../../load/progress';
import { writeLoadReport } from '../../load/report-writer';
import type { Verdict } from '../../load/thresholds';

/** The load reports of one shard's reports directory (its load/<profile>.json). */
function shardReports(dir: string): LoadReport[] {
  const load = join(dir, 'load');
  if (!existsSync(load)) throw new LoadMergeError(`${dir} holds no load/ reports directory`);
  return readdirSync(load)
    .filter((file) => file.endsWith('.json') && !file.endsWith('.latencies.json'))
    .map((file) => JSON.parse(readFileSync(join(load, file), 'utf8')) as LoadReport);
}

/**
 * Merges per profile and writes each merged report; the exit code of the worst verdict (FAIL before
 * NOT MEASURED).
 */
export function mergeCommand(dirs: readonly string[], reportsDir: string): number {
  const byProfile = new Map<string, LoadReport[]>();
  for (const report of dirs.flatMap(shardReports))
    byProfile.set(report.profile, [...(byProfile.get(report.profile) ?? []), report]);
  if (byProfile.size === 0) throw new LoadMergeError(`no load report in ${dirs.join(', ')}`);
  const verdicts: Verdict[] = [];
  for (const [name, reports] of byProfile) {
    const profile = loadProfileNamed(name);
    if (!profile) throw new LoadMergeError(`no load profile is named ${JSON.stringify(name)}`);
    const merged = mergeLoadReports(profile, reports);
    console.log(`${name}: ${reports.length} shards merged`);
    for (const line of resultLines(merged)) console.log(line);
    const written = writeLoadReport(merged, reportsDir);
    console.log(`${verdictLine(merged)}; reports ${written.json} and .html`);
    verdicts.push(merged.verdict);
  }
  return exitCodeOf(
    verdicts.includes('FAIL')
      ? 'FAIL'
      : verdicts.includes('NOT MEASURED')
        ? 'NOT MEASURED'
        : 'PASS',
  );
}
