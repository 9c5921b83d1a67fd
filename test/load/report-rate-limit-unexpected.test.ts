/**
 * The report-rate-limit profile counts and shows every answer that is neither 200 nor 429: a proxy
 * in front of the embedded analytics answers every fourth report request 503 with a body of its own
 * and forwards the rest. Each of those answers is in the totals by status and body, in the
 * `unexpected` metric (whose default threshold fails), on the console and in the HTML page.
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
import { reportRateLimitProfile } from '../../load/report-rate-limit';

const BUSY_BODY = '{"message":"proxy busy"}';

test('answers neither 200 nor 429 are counted by status and body, shown, and fail the run', {
  timeout: 600_000, // a hang guard only
}, async () => {
  const reports = mkdtempSync(join(tmpdir(), 'iotc-rate-limit-other-'));
  process.env.IOTC_STATE_DIR = join(reports, 'state');
  const target = await openTarget('embedded');
  const analytics = target.analytics;
  assert.ok(analytics, 'the embedded target has an analytics component');
  const counts = { requests: 0, busy: 0 };
  const upstream = new URL(analytics.reportUrl).origin;
  const proxy = createServer((incoming, answer) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      counts.requests++;
      if (counts.requests % 4 === 0) {
        counts.busy++;
        answer.writeHead(503, { 'content-type': 'application/json' }).end(BUSY_BODY);
        return;
      }
      request(upstream + (incoming.url ?? ''), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: Buffer.concat(chunks),
      })
        .then(async (response) => {
          answer.writeHead(response.statusCode).end(await response.body.text());
        })
        .catch(() => answer.writeHead(502).end());
    });
  });
  await new Promise<void>((listening) => proxy.listen(0, '127.0.0.1', listening));
  const reportUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}${new URL(analytics.reportUrl).pathname}`;
  const lines: string[] = [];
  try {
    const { report, exitCode } = await runLoadProfile(
      reportRateLimitProfile,
      { maxConcurrency: 3, perConnection: 2 },
      {
        target: { ...target, analytics: { ...analytics, reportUrl } },
        reportsDir: reports,
        log: (line) => lines.push(line),
        progress: () => {},
      },
    );
    assert.ok(counts.busy >= 3, `the proxy answered 503 (${counts.busy} times)`);
    const kind = `HTTP 503 ${BUSY_BODY}`;
    assert.equal(report.totals.sent, counts.requests, 'every request is counted');
    assert.equal(report.totals.errors[kind], counts.busy);
    // the 429s the probe looks for are counted apart, never as errors (issue 27)
    assert.equal(report.totals.errorCount, counts.busy, 'the only errors are the 503s');
    assert.equal(report.totals.refused?.['HTTP 429'] ?? 0, report.metrics.rejected ?? 0);
    assert.equal(report.metrics.unexpected, counts.busy);
    assert.equal(
      report.totals.succeeded + (report.metrics.rejected ?? 0) + counts.busy,
      report.totals.sent,
      'every answer is a 200, a 429 or one of the 503s',
    );
    // each step shows its own: its count and the same answers by kind
    const steps = report.details.steps as Array<{
      unexpected: number;
      kinds: Record<string, number>;
    }>;
    assert.ok(
      steps.some((step) => step.unexpected > 0),
      'some step met the 503s',
    );
    for (const step of steps) assert.equal(step.kinds[kind] ?? 0, step.unexpected);
    const unexpected = report.thresholds.find((threshold) => threshold.source === 'unexpected==0');
    assert.equal(unexpected?.verdict, 'FAIL');
    assert.equal(report.verdict, 'FAIL');
    assert.equal(exitCode, 1);
    assert.ok(
      lines.includes(`answers neither 200 nor 429: ${counts.busy} (${counts.busy}× ${kind})`),
      lines.join('\n'),
    );
    const html = readFileSync(join(reports, 'load', 'report-rate-limit.html'), 'utf8');
    assert.ok(html.includes('proxy busy'), 'the page shows the unexpected answers');
  } finally {
    await new Promise((closed) => proxy.close(closed));
    await target.close();
  }
});
