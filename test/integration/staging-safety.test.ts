/**
 * Staging safety at the process boundary: a run against a separate platform is interrupted at a random point
 * (SIGINT: the run cleans up itself; SIGKILL: nothing runs, `iotc cleanup` must do it). Afterwards no entity the run
 * created is left, and entities that existed before (with or without the prefix) are untouched.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { AdminClient } from '../../src/admin-client';

const ROOT = join(__dirname, '..', '..');
const IOTC = join(ROOT, 'bin', 'iotc.js');
const PREFIX = 'iotc-safety-';

async function startSimulate(): Promise<{ child: ChildProcess; httpUrl: string }> {
  const child = spawn(process.execPath, [IOTC, 'simulate', '--http-port', '0', '--json'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = (await Promise.race([
    once(createInterface({ input: child.stdout! }), 'line'),
    new Promise((_, reject) =>
      setTimeout(() => reject(new Error('iotc simulate did not start in 20 s')), 20_000).unref(),
    ),
  ])) as [string];
  return { child, httpUrl: (JSON.parse(line) as { httpUrl: string }).httpUrl };
}

function iotc(args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, [IOTC, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

async function exitOf(child: ChildProcess): Promise<{ code: number | null; output: string }> {
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const [code] = await once(child, 'exit');
  return { code: code as number | null, output };
}

for (const signal of ['SIGINT', 'SIGKILL'] as const) {
  test(`a run interrupted by ${signal} at a random point leaves nothing behind and touches nothing else`, {
    timeout: 120_000,
  }, async () => {
    const { child: platform, httpUrl } = await startSimulate();
    const admin = await AdminClient.login(httpUrl, {
      username: 'tenant@thingsboard.org',
      password: 'tenant',
    });
    try {
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

      const run = iotc(
        [
          'run',
          '--target',
          profilePath,
          '--tags',
          '@http-device-api',
          '--reports',
          join(dir, 'reports'),
        ],
        env,
      );
      const finished = exitOf(run);
      const waitMs = 1500 + Math.floor(Math.random() * 2000); // a random point inside the run, which takes ~3-4 s
      const stopped = await Promise.race([
        new Promise<boolean>((resolve) => setTimeout(() => resolve(run.kill(signal)), waitMs)),
        finished.then(() => false),
      ]);
      const { code, output } = await finished;
      // SIGINT during start-up, before anything exists, ends the process at once; later it cleans up and exits 130
      if (stopped && signal === 'SIGKILL') assert.equal(code, null, output.slice(-2000));
      if (stopped && signal === 'SIGINT')
        assert.ok(code === null || code === 130, `exit ${code}: ${output.slice(-2000)}`);

      const cleanup = await exitOf(iotc(['cleanup', '--target', profilePath], env));
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
      await admin.close();
      platform.kill('SIGTERM');
      await once(platform, 'exit');
    }
  });
}
