/**
 * A run never leaves a target's settings changed (issue 13 finding 8): the tenant-limits scenario
 * journals the device limit it had before lowering it, so that after a run killed in the middle
 * `iotc cleanup` puts it back (through the profile's system administrator), and says so when it
 * cannot.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPlatform, type RunningPlatform } from '../../simulators/platform';
import { AdminClient } from '../../src/admin-client';
import { cleanupTarget, undoEarlierRun } from '../../src/engine/cleanup';
import { CleanupJournal, journalPath, unrestoredSettings } from '../../src/target/journal';

let platform: RunningPlatform;
let sysadmin: AdminClient;
const SYSADMIN = { username: 'sysadmin@thingsboard.org', password: 'sysadmin' };

before(async () => {
  platform = await startPlatform({ httpPort: 0 });
  sysadmin = await AdminClient.login(platform.httpUrl, SYSADMIN);
});
after(async () => {
  await sysadmin.close();
  await platform.close();
});

function maxDevicesOf(profile: Record<string, unknown>): number | undefined {
  return (profile.profileData as { configuration: { maxDevices?: number } }).configuration
    .maxDevices;
}

/**
 * What a run killed right after the tenant-limits step leaves: the journal line, then the lowered
 * limit.
 */
async function killedRunLeaves(profileName: string, stateDir: string): Promise<string> {
  const path = journalPath(profileName, stateDir);
  const profile = await sysadmin.defaultTenantProfile();
  const id = String((profile.id as { id: string }).id);
  new CleanupJournal(path, 'killed-run').changingSetting({
    setting: 'tenantProfile.maxDevices',
    id,
    previous: maxDevicesOf(profile) ?? 0,
  });
  (profile.profileData as { configuration: { maxDevices?: number } }).configuration.maxDevices = 2;
  await sysadmin.saveTenantProfile(profile);
  return path;
}

function writeProfile(dir: string, name: string, withSysAdmin: boolean): string {
  const path = join(dir, `${name}.json`);
  writeFileSync(
    path,
    JSON.stringify({
      name,
      platform: {
        http: platform.httpUrl,
        tenantAdmin: { username: 'tenant@thingsboard.org', password: 'tenant' },
        ...(withSysAdmin ? { sysAdmin: SYSADMIN } : {}),
      },
      capabilities: [],
      namePrefix: 'iotc-settings-',
    }),
  );
  return path;
}

test('iotc cleanup restores a device limit a killed run lowered, once', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'iotc-settings-'));
  process.env.IOTC_STATE_DIR = join(dir, 'state');
  try {
    const journal = await killedRunLeaves('settings-restore', process.env.IOTC_STATE_DIR);
    assert.equal(maxDevicesOf(await sysadmin.defaultTenantProfile()), 2);
    const lines: string[] = [];
    const code = await cleanupTarget(writeProfile(dir, 'settings-restore', true), (line) =>
      lines.push(line),
    );
    assert.equal(code, 0, lines.join('\n'));
    assert.equal(maxDevicesOf(await sysadmin.defaultTenantProfile()), 0);
    assert.ok(lines.some((line) => line.startsWith('restored tenantProfile.maxDevices')));
    assert.deepEqual(unrestoredSettings(journal), []);
    const again: string[] = [];
    assert.equal(
      await cleanupTarget(writeProfile(dir, 'settings-restore', true), (line) => again.push(line)),
      0,
    );
    assert.match(again.join('\n'), /nothing to clean up/);
  } finally {
    delete process.env.IOTC_STATE_DIR;
  }
});

test('without a system administrator in the profile, cleanup says what it could not restore and fails', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'iotc-settings-'));
  process.env.IOTC_STATE_DIR = join(dir, 'state');
  try {
    await killedRunLeaves('settings-no-sysadmin', process.env.IOTC_STATE_DIR);
    const lines: string[] = [];
    const code = await cleanupTarget(writeProfile(dir, 'settings-no-sysadmin', false), (line) =>
      lines.push(line),
    );
    assert.equal(code, 1);
    assert.ok(lines.some((line) => line.startsWith('NOT restored tenantProfile.maxDevices')));
  } finally {
    delete process.env.IOTC_STATE_DIR;
    // put the limit back for the other tests of this file
    const profile = await sysadmin.defaultTenantProfile();
    (profile.profileData as { configuration: { maxDevices?: number } }).configuration.maxDevices =
      0;
    await sysadmin.saveTenantProfile(profile);
  }
});

async function lifetimes(): Promise<{ tokenExpirationTime: number; refreshTokenExpTime: number }> {
  return (await sysadmin.session.call('GET', '/api/admin/jwtSettings')).json as {
    tokenExpirationTime: number;
    refreshTokenExpTime: number;
  };
}

test('a run killed during the JWT-settings scenario: the next run puts the token lifetimes back before it starts, and the journal is archived', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'iotc-settings-'));
  process.env.IOTC_STATE_DIR = join(dir, 'state');
  try {
    const before = await lifetimes();
    const path = journalPath('settings-jwt', process.env.IOTC_STATE_DIR);
    // what the jwt-settings step does before it changes them, then the change; then the run is
    // killed
    new CleanupJournal(path, 'killed-run').changingSetting({
      setting: 'jwtSettings.lifetimes',
      id: 'system',
      previous: {
        tokenExpirationTime: Number(before.tokenExpirationTime),
        refreshTokenExpTime: Number(before.refreshTokenExpTime),
      },
    });
    await sysadmin.session.call('POST', '/api/admin/jwtSettings', {
      ...before,
      tokenExpirationTime: 2,
      refreshTokenExpTime: 60,
    });
    assert.equal(Number((await lifetimes()).tokenExpirationTime), 2);
    const lines: string[] = [];
    const refusal = await undoEarlierRun(writeProfile(dir, 'settings-jwt', true), (line) =>
      lines.push(line),
    );
    assert.equal(refusal, undefined, lines.join('\n'));
    const after = await lifetimes();
    assert.equal(Number(after.tokenExpirationTime), Number(before.tokenExpirationTime));
    assert.equal(Number(after.refreshTokenExpTime), Number(before.refreshTokenExpTime));
    assert.ok(
      lines.some((line) => line.includes('restored jwtSettings.lifetimes')),
      lines.join('\n'),
    );
    assert.equal(existsSync(path), false, 'the journal is archived once everything is undone');
    assert.equal(existsSync(`${path}.done`), true);
  } finally {
    delete process.env.IOTC_STATE_DIR;
  }
});

test('the next run refuses to start while a journal it cannot undo remains, saying why', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'iotc-settings-'));
  process.env.IOTC_STATE_DIR = join(dir, 'state');
  try {
    await killedRunLeaves('settings-refuse', process.env.IOTC_STATE_DIR);
    const refusal = await undoEarlierRun(writeProfile(dir, 'settings-refuse', false), () => {});
    assert.match(
      refusal ?? '',
      /could not be undone.*tenantProfile\.maxDevices.*platform\.sysAdmin/,
    );
    assert.match(refusal ?? '', /iotc cleanup --target/);
  } finally {
    delete process.env.IOTC_STATE_DIR;
    const profile = await sysadmin.defaultTenantProfile();
    (profile.profileData as { configuration: { maxDevices?: number } }).configuration.maxDevices =
      0;
    await sysadmin.saveTenantProfile(profile);
  }
});

test('iotc cleanup archives a journal with nothing left in it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'iotc-settings-'));
  process.env.IOTC_STATE_DIR = join(dir, 'state');
  try {
    const path = journalPath('settings-empty', process.env.IOTC_STATE_DIR);
    const journal = new CleanupJournal(path, 'done-run');
    journal.intend('device', 'iotc-settings-x');
    journal.deleted('device', 'iotc-settings-x');
    const lines: string[] = [];
    assert.equal(
      await cleanupTarget(writeProfile(dir, 'settings-empty', true), (l) => lines.push(l)),
      0,
    );
    assert.match(lines.join('\n'), /nothing to clean up/);
    assert.equal(existsSync(path), false);
  } finally {
    delete process.env.IOTC_STATE_DIR;
  }
});
