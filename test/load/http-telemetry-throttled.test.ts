/**
 * Throttling answers are counted, never hidden: a proxy in front of the embedded reference's HTTP
 * device API answers every third telemetry POST with 429 and a body of its own and forwards the
 * rest. The run counts each 429 by status and body, stores exactly what was answered 200, and a
 * threshold on errors turns the verdict to FAIL.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { openTarget } from '../../src/target';
import { runLoadProfile } from '../../load/contract';
import { httpTelemetryProfile } from '../../load/http-telemetry';
import { countsOnly } from '../support/load';

const THROTTLE_BODY = '{"status":429,"message":"slow <down>"}';

test('429 answers are counted by status and body, and a threshold on errors fails the run', {
  timeout: 600_000, // a hang guard only
}, async () => {
  const reports = mkdtempSync(join(tmpdir(), 'iotc-http-load-429-'));
  process.env.IOTC_STATE_DIR = join(reports, 'state');
  const target = await openTarget('embedded');
  const counts = { requests: 0, forwarded: 0, refused: 0 };
  const proxy = createServer((incoming, answer) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      counts.requests++;
      if (counts.requests % 3 === 0) {
        counts.refused++;
        answer.writeHead(429, { 'content-type': 'application/json' }).end(THROTTLE_BODY);
        return;
      }
      request(target.httpUrl + (incoming.url ?? ''), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: Buffer.concat(chunks),
      })
        .then(async (response) => {
          const body = await response.body.text();
          if (response.statusCode === 200) counts.forwarded++;
          answer.writeHead(response.statusCode).end(body);
        })
        .catch(() => answer.writeHead(502).end());
    });
  });
  await new Promise<void>((listening) => proxy.listen(0, '127.0.0.1', listening));
  const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  try {
    const { report, exitCode } = await runLoadProfile(
      httpTelemetryProfile,
      { devices: 3, rate: 45, durationS: 2 },
      {
        target: { ...target, httpUrl: proxyUrl },
        defaultThresholds: false,
        thresholds: [...countsOnly(httpTelemetryProfile).thresholds!, 'errors==0'],
        reportsDir: reports,
        log: () => {},
        progress: () => {},
      },
    );
    const kind = `HTTP 429 ${THROTTLE_BODY}`;
    assert.ok(
      counts.refused >= 1,
      `the proxy refused some (${counts.refused} of ${counts.requests})`,
    );
    assert.deepEqual(
      {
        sent: report.totals.sent,
        succeeded: report.totals.succeeded,
        errors: report.totals.errors,
        throttled: report.metrics.throttled,
        statuses: report.details.statuses,
        stored: report.metrics.stored,
        lost: report.metrics.lost,
        refusedStored: report.metrics.refused_stored,
      },
      {
        sent: counts.requests,
        succeeded: counts.forwarded,
        errors: { [kind]: counts.refused },
        throttled: counts.refused,
        statuses: { 200: counts.forwarded, 429: counts.refused },
        stored: counts.forwarded,
        lost: 0,
        refusedStored: 0,
      },
    );
    assert.deepEqual(
      report.thresholds.map((threshold) => [threshold.source, threshold.verdict]),
      [
        ...countsOnly(httpTelemetryProfile).thresholds!.map((source) => [source, 'PASS']),
        ['errors==0', 'FAIL'],
      ],
      'refusals are not losses: only the threshold on errors fails',
    );
    assert.equal(report.verdict, 'FAIL');
    assert.equal(exitCode, 1);
    const perSecond = report.series.reduce((sum, sample) => sum + (sample.errors[kind] ?? 0), 0);
    assert.equal(perSecond, counts.refused, 'the series shows every 429 too');
    const html = readFileSync(join(reports, 'load', 'http-telemetry.html'), 'utf8');
    assert.ok(html.includes('slow &#60;down&#62;'), 'the page shows the body, escaped');
    assert.ok(!html.includes('<down>'), 'nothing of the body reaches the page unescaped');
  } finally {
    proxy.closeAllConnections();
    await new Promise((closed) => proxy.close(closed));
    await target.close();
  }
});
