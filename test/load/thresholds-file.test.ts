/**
 * `--thresholds <file.json>`: a list of expressions or k6's by-metric form reads into the same
 * expressions as `--threshold`, and through the CLI decides the verdict and the exit code alike; a
 * malformed file or expression is refused before anything runs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LoadReport } from '../../load/contract';
import { readThresholdsFile, ThresholdsFileError } from '../../load/thresholds-file';
import { exitOf, spawnIotc } from '../support/children';
import { loadProfile } from '../../src/target';
import { loadConnectorConfig } from '../../simulators/connector/config';

function file(dir: string, name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

test('a list and the by-metric form read into the expressions --threshold takes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'iotc-thresholds-'));
  assert.deepEqual(
    readThresholdsFile(file(dir, 'list.json', { thresholds: ['p99<50', 'lost==0'] })),
    ['p99<50', 'lost==0'],
  );
  assert.deepEqual(
    readThresholdsFile(
      file(dir, 'k6.json', { thresholds: { p99: ['<50', '>= 0'], errors: ['==0'] } }),
    ),
    ['p99<50', 'p99>= 0', 'errors==0'],
  );
  for (const [name, content, pattern] of [
    ['broken.json', '{"thresholds": [', /not valid JSON: .*line 1, column 17/],
    ['missing.json', { limits: ['p99<50'] }, /"thresholds"/],
    ['operator.json', { thresholds: { p99: ['50'] } }, /does not match its schema/],
  ] as const)
    assert.throws(
      () => readThresholdsFile(file(dir, name, content)),
      (error: unknown) => error instanceof ThresholdsFileError && pattern.test(error.message),
      name,
    );
});

test('through the CLI, a file threshold decides like a flag: FAIL and exit 1; a bad one exits 2 before the run', {
  timeout: 600_000, // a hang guard only
}, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'iotc-thresholds-cli-'));
  const env = { ...process.env, IOTC_STATE_DIR: join(dir, 'state') };
  const storm = ['load', 'mqtt-connect', '-n', '2', '--rate', '10', '--hold', '0'];
  const failing = file(dir, 'failing.json', { thresholds: { sent: ['<1'] } });
  const run = await exitOf(
    spawnIotc(
      [...storm, '--thresholds', failing, '--threshold', 'errors==0', '-r', join(dir, 'a')],
      {
        env,
      },
    ),
  );
  assert.equal(run.code, 1, run.output);
  const report = JSON.parse(
    readFileSync(join(dir, 'a', 'load', 'mqtt-connect.json'), 'utf8'),
  ) as LoadReport;
  assert.deepEqual(
    report.thresholds.slice(-2).map((threshold) => [threshold.source, threshold.verdict]),
    [
      ['sent<1', 'FAIL'],
      ['errors==0', 'PASS'],
    ],
    'the file thresholds come after the defaults, then the flags',
  );
  assert.equal(report.verdict, 'FAIL');

  const unknown = file(dir, 'unknown.json', { thresholds: ['p99<50', 'latency<5'] });
  const refused = await exitOf(
    spawnIotc([...storm, '--thresholds', unknown, '-r', join(dir, 'b')], { env }),
  );
  assert.equal(refused.code, 2, refused.output);
  assert.match(refused.output, /IOTC_THRESHOLD_METRIC/);
  assert.match(refused.output, /"latency"/);
  assert.ok(!existsSync(join(dir, 'b', 'load')), 'nothing was written');
});

test('JSON syntax errors of a thresholds file, a target profile and a rest.json name the line and column (issue 27)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'iotc-json-syntax-'));
  const broken = join(dir, 'broken.json');
  writeFileSync(broken, '{\n  "thresholds": ["p99<50"]\n  "more": 1\n}\n');
  assert.throws(
    () => readThresholdsFile(broken),
    (error: Error) =>
      error instanceof ThresholdsFileError &&
      /not valid JSON: .*line 3, column 3/.test(error.message),
  );
  const truncated = join(dir, 'truncated.json');
  writeFileSync(truncated, '{\n  "name": "x",\n  "platform": {\n');
  assert.throws(() => loadProfile(truncated), /not valid JSON: .*\(line 4, column 1\)/);
  assert.throws(() => loadConnectorConfig(broken), /\$: not JSON: .*line 3, column 3/);
});
