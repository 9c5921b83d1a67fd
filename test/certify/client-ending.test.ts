/**
 * `iotc certify` ends the client under test on every path: a client that ignores SIGTERM and never
 * ends is killed after the steps, and a certification interrupted by a signal takes the client's
 * process group with it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { exitOf, spawnIotc } from '../support/children';

// a client that speaks once, ignores SIGTERM and would run forever (no double quote: it runs inside
// the shell's)
const STUBBORN = [
  "process.on('SIGTERM', () => {});",
  "require('node:fs').writeFileSync(process.env.PID_FILE, String(process.pid));",
  "fetch(process.env.IOTC_CERTIFY_URL + '/api/v1/' + process.env.IOTC_CERTIFY_TOKEN + '/telemetry',",
  " { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ a: 1 }) });",
  'setInterval(() => {}, 1000);',
].join(' ');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits until the process is gone (reaped); the bound is a hang guard, the test fails past it. */
async function gone(pid: number): Promise<boolean> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    if (!alive(pid)) return true;
    await sleep(50);
  }
  return false;
}

async function withClient(run: (args: string[], pidFile: string) => Promise<void>) {
  const dir = mkdtempSync(join(tmpdir(), 'iotc-certify-end-'));
  const pidFile = join(dir, 'client.pid');
  const args = ['certify', 'device', '--exec', `"${process.execPath}" -e "${STUBBORN}"`];
  try {
    await run([...args, '--reports', join(dir, 'reports')], pidFile);
  } finally {
    try {
      process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL');
    } catch {
      // never started, or gone as it should be
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a client that ignores SIGTERM is killed once the steps and the grace period are over', async () => {
  await withClient(async (args, pidFile) => {
    const child = spawnIotc([...args, '--grace-ms', '300', '--rpc-timeout-ms', '1000'], {
      env: { ...process.env, PID_FILE: pidFile },
    });
    const { code, output } = await exitOf(child);
    assert.equal(code, 0, output); // no FAIL: what it sent conforms, the rest was not exercised
    assert.match(output, /the client under test ended: SIG(TERM|KILL)/);
    assert.ok(await gone(Number(readFileSync(pidFile, 'utf8'))), 'the client still runs');
  });
});

test('a certification ended by a signal kills the client under test with it', async () => {
  await withClient(async (args, pidFile) => {
    const child = spawnIotc([...args, '--grace-ms', '600000', '--rpc-timeout-ms', '600000'], {
      env: { ...process.env, PID_FILE: pidFile },
    });
    const exited = exitOf(child);
    for await (const line of createInterface({ input: child.stdout! }))
      if (line.includes('step 2:')) break;
    child.kill('SIGTERM');
    const { code } = await exited;
    assert.equal(code, 130);
    assert.ok(await gone(Number(readFileSync(pidFile, 'utf8'))), 'the client still runs');
  });
});
