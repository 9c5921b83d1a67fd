/**
 * What the two kill -9 tests share (test/integration/killed-run-settings.test.ts and
 * killed-run-random.test.ts): the target profile of an `iotc simulate` child that allows every
 * setting-changing scenario, and a reading of the settings those scenarios change, to prove they
 * end as they began.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AdminClient } from '../../src/admin-client';
import { journalPath } from '../../src/target/journal';

export const SYSADMIN = { username: 'sysadmin@thingsboard.org', password: 'sysadmin' };

/**
 * A new temporary folder with the profile `name` of the child's URLs, its own state folder and
 * journal path.
 */
export function killedRunProfile(
  info: { httpUrl: string; mqttUrl?: string },
  name: string,
): { dir: string; profilePath: string; env: NodeJS.ProcessEnv; journal: string } {
  const dir = mkdtempSync(join(tmpdir(), `iotc-${name}-`));
  const profilePath = join(dir, 'killed.json');
  writeFileSync(
    profilePath,
    JSON.stringify({
      name,
      platform: {
        http: info.httpUrl,
        mqtt: info.mqttUrl,
        tenantAdmin: { username: 'tenant@thingsboard.org', password: 'tenant' },
        customerUser: { username: 'customer@thingsboard.org', password: 'customer' },
        sysAdmin: SYSADMIN,
      },
      capabilities: ['mqtt5', 'tenant-limits', 'jwt-settings'],
      namePrefix: 'iotc-killed-',
    }),
  );
  return {
    dir,
    profilePath,
    env: { ...process.env, IOTC_STATE_DIR: join(dir, 'state') },
    journal: journalPath(name, join(dir, 'state')),
  };
}

/**
 * The settings the scenarios change: the default tenant profile's device limit and the JWT
 * lifetimes.
 */
export async function changedSettings(
  sysadmin: AdminClient,
): Promise<{ maxDevices?: number; access: number; refresh: number }> {
  const profile = await sysadmin.defaultTenantProfile();
  const jwt = (await sysadmin.session.call('GET', '/api/admin/jwtSettings')).json as Record<
    string,
    unknown
  >;
  return {
    maxDevices: (profile.profileData as { configuration: { maxDevices?: number } }).configuration
      .maxDevices,
    access: Number(jwt.tokenExpirationTime),
    refresh: Number(jwt.refreshTokenExpTime),
  };
}
