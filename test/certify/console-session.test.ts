/**
 * `iotc certify device --console` without a browser: the real command (a child process), its
 * console over real HTTP. A step whose bound passes, and a finish pressed before the steps are
 * done, leave the requirements of those steps NOT TESTED with the step and why in the reason (never
 * PASS); what the client sent is shown escaped on the page.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { HttpDevice } from '../../simulators/device/http-device';
import { exitOf, spawnIotc, stop } from '../support/children';

interface Report {
  verdict: string;
  requirements: Array<{ id: string; verdict: string; reason?: string }>;
}

/**
 * The console's address and the device's URL and token, from the lines the command prints first.
 */
async function started(child: ChildProcess): Promise<Record<string, string>> {
  const found: Record<string, string> = {};
  const lines = createInterface({ input: child.stdout! });
  for await (const line of lines) {
    const match = /^certify: (?:operator console: (\S+)|IOTC_CERTIFY_(URL|TOKEN)=(\S+))$/.exec(
      line,
    );
    if (match?.[1]) found.console = match[1];
    if (match?.[2]) found[match[2].toLowerCase()] = match[3];
    if (found.console && found.url && found.token) {
      lines.close();
      child.stdout!.resume(); // closing the reader paused it: the rest still goes to exitOf
      return found;
    }
  }
  throw new Error('iotc certify ended without printing the console address, URL and token');
}

async function certify(
  args: string[],
  operator: (printed: Record<string, string>) => Promise<void>,
): Promise<{ code: number | null; output: string; report: Report }> {
  const reports = mkdtempSync(join(tmpdir(), 'iotc-console-'));
  const child = spawnIotc(['certify', 'device', '--console', '--reports', reports, ...args]);
  const exited = exitOf(child);
  try {
    await operator(await started(child));
    const { code, output } = await exited;
    const report = JSON.parse(readFileSync(join(reports, 'conformance.json'), 'utf8')) as Report;
    return { code, output, report };
  } finally {
    await stop(child);
    rmSync(reports, { recursive: true, force: true });
  }
}

function reasonOf(report: Report, id: string): string {
  const requirement = report.requirements.find((candidate) => candidate.id === id);
  assert.equal(requirement?.verdict, 'NOT TESTED', `${id}: ${JSON.stringify(requirement)}`);
  return requirement?.reason ?? '';
}

describe('iotc certify device --console', { concurrency: 2 }, () => {
  test('a device that does nothing: every step times out and every requirement is NOT TESTED saying so (exit 3)', async () => {
    const { code, output, report } = await certify(
      ['--step-timeout-ms', '1000', '--rpc-timeout-ms', '1000'],
      async () => {},
    );
    assert.equal(code, 3, output);
    assert.equal(report.verdict, 'NOT TESTED');
    assert.match(
      reasonOf(report, 'HTTP-DEV-04'),
      /the step "send telemetry now.*" timed out after 1000 ms/,
    );
    assert.match(
      reasonOf(report, 'HTTP-DEV-03'),
      /"post client attributes now.*" timed out after 1000 ms/,
    );
    assert.match(
      reasonOf(report, 'HTTP-DEV-05'),
      /the step "answer the RPC iotcCertifyPing now.*" timed out after 1000 ms/,
    );
    // the URL form has no step of its own: its reason is the checks' own
    assert.match(reasonOf(report, 'HTTP-DEV-01'), /not exercised: the client sent no request$/);
  });

  test('finish pressed at the attributes step: the steps not reached are named, the telemetry judged, the page escaped', async () => {
    const hostile = '<img src=x onerror=alert(1)>';
    const { code, output, report } = await certify(
      ['--step-timeout-ms', '300000'],
      async (printed) => {
        const device = new HttpDevice(printed.url, printed.token);
        try {
          assert.equal((await device.postTelemetry({ json: { note: hostile } })).status, 200);
        } finally {
          await device.close();
        }
        // the console shows the message as text, and asks for the next step
        for (;;) {
          const page = await (await request(printed.console)).body.text();
          assert.ok(!page.includes(hostile), 'the client-sent text is escaped on the page');
          if (page.includes('data-step="attributes"')) {
            assert.ok(page.includes('&#60;img src=x onerror=alert(1)&#62;'), page);
            assert.ok(!page.includes(printed.token.concat('/telemetry')), 'messages show {token}');
            break;
          }
          await sleep(100); // the console updates when the telemetry's answer is sent; the test's timeout bounds this
        }
        const finish = await request(`${printed.console}/finish`, { method: 'POST' });
        await finish.body.dump();
        assert.equal(finish.statusCode, 303);
      },
    );
    assert.equal(code, 0, `nothing judged failed, so no FAIL exit:\n${output}`);
    assert.equal(report.requirements.find((r) => r.id === 'HTTP-DEV-03')?.verdict, 'PASS');
    assert.match(reasonOf(report, 'HTTP-DEV-05'), /the step "answer the RPC.*" was not reached/);
    assert.match(reasonOf(report, 'HTTP-DEV-06'), /was not reached/);
    assert.match(
      reasonOf(report, 'HTTP-DEV-07'),
      /the step "the platform sets the shared attribute.*" was not reached/,
    );
    // the telemetry step was done without the timestamped form: a form the device may leave (issue
    // 28)
    assert.equal(
      report.requirements.find((r) => r.id === 'HTTP-DEV-04')?.verdict,
      'NOT APPLICABLE',
    );
    assert.match(
      report.requirements.find((r) => r.id === 'HTTP-DEV-04')?.reason ?? '',
      /not applicable: the client sent no telemetry in the timestamped form/,
    );
  });

  test('neither --exec nor --console is refused before anything starts', async () => {
    const { code, output } = await exitOf(spawnIotc(['certify', 'device', '--transport', 'http']));
    assert.notEqual(code, 0);
    assert.match(output, /--exec "<command>", or --console/);
  });
});
