/**
 * Ctrl-C during a run against a separate platform (issue 26 item 4): one SIGINT cleans up and
 * writes the report of what ran (run.interrupted, verdict INCOMPLETE or NOT CONFORMANT) with no
 * empty report file; a second SIGINT soon after exits at once, says which cleanup command to run
 * and leaves the journal for it, and `iotc cleanup` then deletes what the run left and removes the
 * journal.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { AdminClient } from '../../src/admin-client';
import { journalPath, leftovers } from '../../src/target/journal';
import { exitOf, spawnIotc, startSimulate, stop } from '../support/children';

const PREFIX = 'iotc-ctrlc-';

/**
 * Sends SIGINT as soon as the journal shows a scenario's entity (in the callback that sees it),
 * then `then`.
 */
function interruptWhenCreating(
  path: string,
  run: ChildProcess,
  then: () => void,
): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setInterval(() => {
      if (existsSync(path) && readFileSync(path, 'utf8').includes('"event":"created"')) {
        clearInterval(timer);
        run.kill('SIGINT');
        then();
        resolve(true);
      }
    }, 5);
    run.once('exit', () => {
      clearInterval(timer);
      resolve(false);
    });
  });
}

for (const times of [1, 2] as const) {
  test(`Ctrl-C ${times === 1 ? 'once: cleanup and the report of what ran' : 'twice: exit at once, the journal kept and the cleanup command named'}`, {
    timeout: 600_000, // a hang guard only
  }, async () => {
    const { child: platform, info } = await startSimulate();
    const admin = await AdminClient.login(info.httpUrl, {
      username: 'tenant@thingsboard.org',
      password: 'tenant',
    });
    try {
      const dir = mkdtempSync(join(tmpdir(), 'iotc-ctrlc-'));
      const profilePath = join(dir, 'ctrlc.json');
      writeFileSync(
        profilePath,
        JSON.stringify({
          name: `ctrlc-${times}`,
          platform: {
            http: info.httpUrl,
            tenantAdmin: { username: 'tenant@thingsboard.org', password: 'tenant' },
          },
          capabilities: [],
          namePrefix: PREFIX,
        }),
      );
      const env = { ...process.env, IOTC_STATE_DIR: join(dir, 'state') };
      const journal = journalPath(`ctrlc-${times}`, join(dir, 'state'));
      const reports = join(dir, 'reports');
      const run = spawnIotc(
        // two workers, not the test runner's three: the run is interrupted at its first scenario's
        // entity; two keep the coordinator stopping parallel workers, the third only cost its start
        [
          'run',
          '--parallel',
          '2',
          '--target',
          profilePath,
          '--reports',
          reports,
          'features/http-device-api',
        ],
        { env },
      );
      const finished = exitOf(run);
      // the second Ctrl-C as soon as the run says it is stopping (its handler is in place; the
      // first is still at work)
      if (times === 2)
        run.stderr?.on('data', (chunk: Buffer) => {
          if (chunk.toString().includes('SIGINT: stopping')) run.kill('SIGINT');
        });
      const interrupted = await interruptWhenCreating(journal, run, () => {});
      const { code, output } = await finished;
      assert.ok(
        interrupted,
        `the run ended before a scenario created anything:\n${output.slice(-2000)}`,
      );
      assert.equal(code, 130, output.slice(-3000));

      // the report of what ran, and no empty file
      const report = JSON.parse(readFileSync(join(reports, 'conformance.json'), 'utf8')) as {
        verdict: string;
        verdictReason?: string;
        run: { interrupted?: string; scenarios: Record<string, number> };
      };
      assert.match(report.run.interrupted ?? '', /interrupted by (a second )?SIGINT/);
      assert.ok(['INCOMPLETE', 'NOT CONFORMANT'].includes(report.verdict), report.verdict);
      assert.match(report.verdictReason ?? '', /interrupted/);
      for (const file of readdirSync(reports))
        assert.ok(statSync(join(reports, file)).size > 0, `${file} is empty`);

      if (times === 2) {
        assert.match(output, /SIGINT again: exiting now/);
        assert.match(
          output,
          new RegExp(`iotc cleanup --target ${profilePath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
        );
        const cleanup = await exitOf(spawnIotc(['cleanup', '--target', profilePath], { env }));
        assert.equal(cleanup.code, 0, cleanup.output);
      }
      // either way nothing is left, and the journal is gone once nothing is left in it
      assert.deepEqual(
        (await admin.listDevices(0, PREFIX, 100)).data.map((device) => device.name),
        [],
      );
      assert.deepEqual(leftovers(journal), []);
      assert.equal(
        existsSync(journal),
        false,
        'the journal is archived once nothing is left in it',
      );
    } finally {
      await admin.close();
      await stop(platform);
    }
  });
}
