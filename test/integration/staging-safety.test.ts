/**
 * Staging safety at the process boundary: a run against a separate platform is interrupted at a
 * random point (SIGINT: the run cleans up itself; SIGKILL: nothing runs, `iotc cleanup` must do
 * it). Afterwards no entity the run created is left, and entities that existed before (with or
 * without the prefix) are untouched.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdminClient } from '../../src/admin-client';
import { exitOf, spawnIotc, startSimulate, stop } from '../support/children';

const PREFIX = 'iotc-safety-';

for (const signal of ['SIGINT', 'SIGKILL'] as const) {
  test(`a run interrupted by ${signal} at a random point leaves nothing behind and touches nothing else`, {
    timeout: 900_000, // a hang guard only: a loaded 2-core machine can take minutes
  }, async () => {
    const {
      child: platform,
      info: { httpUrl },
    } = await startSimulate();
    let admin: AdminClient | undefined;
    try {
      admin = await AdminClient.login(httpUrl, {
        username: 'tenant@thingsboard.org',
        password: 'tenant',
      });
      const dir = mkdtempSync(join(tmpdir(), 'iotc-safety-'));
      const profilePath = join(dir, 'safety.json');
      writeFileSync(
        profilePath,
        JSON.stringify({
          name: `safety-${signal}`,
          platform: {
            http: httpUrl,
            tenantAdmin: {
              username: 'tenant@thingsboard.org',
              password: '${env:IOTC_SAFETY_PASSWORD}',
            },
          },
          capabilities: [],
          namePrefix: PREFIX,
        }),
      );
      const env = { IOTC_STATE_DIR: join(dir, 'state'), IOTC_SAFETY_PASSWORD: 'tenant' };
      const bystanders = [
        await admin.createDevice('customer-owned-thermostat'),
        await admin.createDevice(`${PREFIX}made-by-hand`),
      ];

      const run = spawnIotc(
        [
          'run',
          // two workers, not the test runner's three: the run is stopped 1.5-3.5 s in; two keep
          // parallel workers' entities to clean up, a third only cost its start
          '--parallel',
          '2',
          '--target',
          profilePath,
          '--tags',
          '@http-device-api',
          '--reports',
          join(dir, 'reports'),
        ],
        { env: { ...process.env, ...env } },
      );
      const finished = exitOf(run);
      // a random point inside the run, which takes ~3-4 s on a quiet machine (later on a busy one:
      // then the point falls into the start-up, which must be just as safe)
      const waitMs = 1500 + Math.floor(Math.random() * 2000);
      const stopped = await Promise.race([
        new Promise<boolean>((resolve) => setTimeout(() => resolve(run.kill(signal)), waitMs)),
        finished.then(() => false),
      ]);
      const { code, output } = await finished;
      // SIGINT during start-up, before anything exists, ends the process at once; later it cleans
      // up and exits 130
      if (stopped && signal === 'SIGKILL') assert.equal(code, null, output.slice(-2000));
      if (stopped && signal === 'SIGINT')
        assert.ok(code === null || code === 130, `exit ${code}: ${output.slice(-2000)}`);

      const cleanup = await exitOf(
        spawnIotc(['cleanup', '--target', profilePath], { env: { ...process.env, ...env } }),
      );
      assert.equal(cleanup.code, 0, cleanup.output);
      assert.ok(
        !/tenant/.test(cleanup.output.replace(/tenant@thingsboard\.org/g, '')),
        'cleanup output shows no password',
      );

      const left = (await admin.listDevices(0, PREFIX, 1000)).data.map((device) => device.name);
      assert.deepEqual(
        left,
        [`${PREFIX}made-by-hand`],
        `after ${signal} at ${waitMs} ms the run left ${JSON.stringify(left)}`,
      );
      for (const bystander of bystanders)
        assert.ok(await admin.findDeviceByName(bystander.name), `${bystander.name} was deleted`);
    } finally {
      await admin?.close();
      await stop(platform);
    }
  });
}
