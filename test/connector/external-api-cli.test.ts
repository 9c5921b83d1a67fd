/**
 * iotc external-api as a separate process, as it runs next to a real gateway: with --https-port it
 * also serves HTTPS with a certificate nobody trusts, and names both URLs under /__iotc/info.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Agent, request } from 'undici';
import { ROOT } from '../support/iotc';

it('serves HTTP and HTTPS; the HTTPS certificate is refused by a verifying client', {
  timeout: 120_000,
}, async () => {
  const child = spawn(
    process.execPath,
    [join(ROOT, 'bin', 'iotc.js'), 'external-api', '--port', '0', '--https-port', '0', '--json'],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const untrusting = new Agent({ connect: { rejectUnauthorized: false } });
  try {
    const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
    const urls = JSON.parse(line) as { url: string; httpsUrl: string };
    assert.match(urls.httpsUrl, /^https:\/\/127\.0\.0\.1:\d+$/);
    const info = await request(`${urls.url}/__iotc/info`);
    assert.deepEqual(await info.body.json(), urls);
    const overHttps = await request(`${urls.httpsUrl}/anything`, { dispatcher: untrusting });
    await overHttps.body.dump();
    assert.equal(overHttps.statusCode, 200);
    await assert.rejects(request(`${urls.httpsUrl}/anything`), /certificate/i);
    const recorded = await request(`${urls.url}/__iotc/requests?pathPrefix=/anything`);
    assert.equal(((await recorded.body.json()) as unknown[]).length, 1, 'only the admitted call');
  } finally {
    await untrusting.close();
    child.kill('SIGTERM');
    if (child.exitCode === null) await once(child, 'exit');
  }
});
