/**
 * A run killed (kill -9) while a scenario has a target setting changed, then run again BEFORE `iotc
 * cleanup` (issue 26 item 4): the second run puts the settings back before its first scenario (no
 * false FAIL from a device limit left lowered), and after it the target's settings are as they were
 * before the first run. The kill points are the dangerous ones, found in the journal (a setting
 * journaled as changing, not yet restored), not guessed times: the device limit lowered, the JWT
 * lifetimes changed, and a point after some scenarios ran.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { AdminClient } from '../../src/admin-client';
import { unrestoredSettings } from '../../src/target/journal';
import { changedSettings, killedRunProfile, SYSADMIN } from '../support/killed-run';
import { exitOf, spawnIotc, startSimulate, stop } from '../support/children';

/**
 * Kills the run (SIGKILL) as soon as its journal shows `condition`, in the same callback that sees
 * it (a loaded machine delays a promise's continuation by seconds); resolves whether it was killed
 * there, or had ended first.
 */
function killWhenJournal(path: string, condition: (text: string) => boolean, run: ChildProcess) {
  return new Promise<boolean>((resolve) => {
    const check = () => {
      if (existsSync(path) && condition(readFileSync(path, 'utf8'))) finish(run.kill('SIGKILL'));
    };
    const timer = setInterval(check, 5);
    const finish = (killed: boolean) => {
      clearInterval(timer);
      resolve(killed);
    };
    run.once('exit', () => finish(false));
  });
}

const POINTS: Array<{
  name: string;
  /** The setting is changed on the target at this point for sure (not only journaled). */
  changed?: boolean;
  features: string[];
  killWhen: (journal: string, path: string) => boolean;
}> = [
  {
    // a device journaled after the limit was: the limit is lowered on the target for sure
    name: 'the device limit lowered',
    changed: true,
    features: ['features/mqtt-gateway-api/device-limit.feature'],
    killWhen: (text, path) =>
      unrestoredSettings(path).some((change) => change.setting === 'tenantProfile.maxDevices') &&
      /"setting-changing"[\s\S]*"event":"intent"/.test(text),
  },
  {
    name: 'the JWT lifetimes changed',
    features: ['features/admin-auth/login.feature'],
    killWhen: (_text, path) =>
      unrestoredSettings(path).some((change) => change.setting === 'jwtSettings.lifetimes'),
  },
  {
    name: 'the second device-limit scenario under way',
    features: ['features/mqtt-gateway-api/device-limit.feature'],
    killWhen: (text) => (text.match(/"setting-changing"/g) ?? []).length >= 2,
  },
];

test('kill -9 with settings changed, then a second run before cleanup: no false FAIL, settings as before', {
  timeout: 900_000, // a hang guard only
}, async () => {
  const { child: platform, info } = await startSimulate(['--mqtt-port', '0']);
  const sysadmin = await AdminClient.login(info.httpUrl, SYSADMIN);
  const settings = () => changedSettings(sysadmin);
  try {
    const before = await settings();
    for (const point of POINTS) {
      const { dir, profilePath, env, journal } = killedRunProfile(info, 'killed-run');
      const args = (reports: string) => [
        'run',
        '--target',
        profilePath,
        '--reports',
        join(dir, reports),
        ...point.features,
      ];
      const first = spawnIotc(args('first'), { env });
      const firstExit = exitOf(first);
      const reached = await killWhenJournal(
        journal,
        (text) => point.killWhen(text, journal),
        first,
      );
      assert.ok(
        reached,
        `${point.name}: the run ended before the point:\n${(await firstExit).output.slice(-2000)}`,
      );
      const killed = await firstExit;
      assert.equal(
        killed.code,
        null,
        `${point.name}: the run ended before the kill: ${killed.output.slice(-1500)}`,
      );
      // journaled and not yet changed is a kill point too; where the change is certain, it is there
      if (point.changed)
        assert.notDeepEqual(
          await settings(),
          before,
          `${point.name}: the kill left no setting changed`,
        );

      // the second run, before any cleanup: it undoes the first run's changes, then every scenario
      // passes
      const second = await exitOf(spawnIotc(args('second'), { env }));
      assert.equal(second.code, 0, `${point.name}:\n${second.output.slice(-3000)}`);
      assert.match(second.output, /an earlier run against "killed-run" left/);
      assert.deepEqual(await settings(), before, `${point.name}: settings after the second run`);
      assert.deepEqual(unrestoredSettings(journal), []);
    }
  } finally {
    await sysadmin.close();
    await stop(platform);
  }
});
