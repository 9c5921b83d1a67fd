/**
 * conformance.html is readable at a normal width (issue 27): at 1280 px the statement of the first
 * requirement is in the viewport, and the page does not scroll sideways, even when every
 * requirement carries a long reason (the one of a run that could not reach its target). The verdict
 * column once did not wrap, and a reader at 1400 px saw id, interface and verdict only, the
 * statements some 2,700 px to the right.
 *
 * Headless Chromium (Debian's `chromium`); without it the test is skipped with the reason, except
 * in CI (CI=true). IOTC_SHOTS_DIR=<dir> also keeps the screenshot there (conformance-1280.png) for
 * people to look at.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildConformanceReport, loadCatalogue } from '../../src/report/conformance';
import { conformanceHtml } from '../../src/report/html';
import { Redactor } from '../../src/report/redact';
import { requirementVerdicts } from '../../src/report/verdicts';
import { ChromiumPage, findChromium, skipWithoutChromium } from '../support/chromium';

const chromium = findChromium();

function reportPage(dir: string): string {
  const now = new Date();
  const report = buildConformanceReport({
    version: '0.0.0',
    target: { name: 'closed-port', httpUrl: 'http://127.0.0.1:9', adminUrl: '', capabilities: [] },
    startedAt: now,
    finishedAt: now,
    tagExpression: '',
    scenarios: [],
    requirements: requirementVerdicts(loadCatalogue(), [], { capabilities: new Set() }),
    redactor: new Redactor(),
    couldNotTest:
      'cannot test target "closed-port": http://127.0.0.1:9 refused the connection (ECONNREFUSED): nothing listens at 127.0.0.1:9',
  });
  const path = join(dir, 'conformance.html');
  writeFileSync(path, conformanceHtml(report));
  return path;
}

test('conformance.html at 1280 px: the first requirement statement is inside the viewport, no sideways scroll', {
  skip: skipWithoutChromium('chromium'),
  timeout: 300_000, // a hang guard only
}, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'iotc-html-layout-'));
  const page = await ChromiumPage.open(chromium!, pathToFileURL(reportPage(dir)).href);
  try {
    const layout = await page.waitFor<{
      ready: boolean;
      viewport: number;
      scrollWidth: number;
      statement: { left: number; right: number; text: string };
    }>(
      `(() => {
        const cell = document.querySelector('tr.requirement td:nth-child(5)');
        if (document.readyState !== 'complete' || !cell) return { ready: false };
        const box = cell.getBoundingClientRect();
        return {
          ready: true,
          viewport: window.innerWidth,
          scrollWidth: document.documentElement.scrollWidth,
          statement: { left: box.left, right: box.right, text: cell.textContent.slice(0, 60) },
        };
      })()`,
      (value) => value.ready,
    );
    assert.equal(layout.viewport, 1280, 'the window is 1280 px wide');
    assert.ok(
      layout.statement.left >= 0 && layout.statement.right <= layout.viewport,
      `the statement "${layout.statement.text}" spans ${layout.statement.left}..${layout.statement.right} px of a ${layout.viewport} px viewport`,
    );
    assert.ok(
      layout.scrollWidth <= layout.viewport,
      `the page is ${layout.scrollWidth} px wide at a viewport of ${layout.viewport} px`,
    );
    if (process.env.IOTC_SHOTS_DIR) {
      mkdirSync(process.env.IOTC_SHOTS_DIR, { recursive: true });
      writeFileSync(
        join(process.env.IOTC_SHOTS_DIR, 'conformance-1280.png'),
        await page.screenshot(),
      );
    }
  } finally {
    await page.close();
  }
});
