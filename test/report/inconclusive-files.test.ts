/**
 * The report's files with an INCONCLUSIVE requirement: counted apart in the summary, a filter of
 * its own on the page, an error (not a failure) in junit.xml, named on the badge; the harness's
 * load in the run facts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildConformanceReport, formatSummary } from '../../src/report/conformance';
import { conformanceHtml } from '../../src/report/html';
import { junitXml } from '../../src/report/junit';
import { badgeSvg } from '../../src/report/badge';
import { Redactor } from '../../src/report/redact';
import { requirementVerdicts, type ScenarioResult } from '../../src/report/verdicts';
import { conformanceReportSchema } from '../../schemas';
import { validate } from '../../schemas/validate';

import { requirement } from '../support/requirements';
const ran = (tag: string, status: ScenarioResult['status'], error?: string): ScenarioResult => ({
  name: tag,
  location: `f.feature:${tag.length}`,
  tags: [tag],
  status,
  durationMs: 1,
  evidence: [],
  error,
});

test('conformance.json, the console, the page, junit.xml and the badge count INCONCLUSIVE apart', () => {
  const error =
    "Inconclusive: INCONCLUSIVE: the harness's event loop stalled 900 ms while proving that x, more than the 200 ms margin the verdict needs (a busy machine)";
  const scenarios = [ran('@P-01', 'PASSED'), ran('@I-01', 'INCONCLUSIVE', error)];
  const report = buildConformanceReport({
    version: '0',
    target: { name: 't', httpUrl: 'h', adminUrl: 'a', capabilities: [] },
    startedAt: new Date(0),
    finishedAt: new Date(1000),
    tagExpression: '',
    scenarios,
    requirements: requirementVerdicts([requirement('P-01'), requirement('I-01')], scenarios, {
      capabilities: new Set(),
    }),
    redactor: new Redactor(),
    harness: [
      {
        pid: 1,
        eventLoopLagMs: { max: 900, p99: 40, mean: 11 },
        measuredDelays: { 'attribute-update': { maxMs: 120, count: 3 } },
      },
    ],
  });
  const shape = validate(conformanceReportSchema, JSON.parse(JSON.stringify(report)));
  assert.ok(shape.ok, shape.errors.join('; '));
  assert.equal(report.verdict, 'INCOMPLETE');
  assert.equal(report.verdictReason, '1 requirement INCONCLUSIVE: the harness was starved');
  assert.equal(report.summary[0].verdicts.INCONCLUSIVE, 1);
  assert.equal(report.summary[0].verdicts.PASS, 1);
  assert.equal(report.run.harness?.[0].eventLoopLagMs.max, 900);

  const console = formatSummary(report);
  assert.match(console, /INCOMPLETE \(1 requirement INCONCLUSIVE: the harness was starved\)/);
  assert.match(console, /INCONCL\./);
  assert.match(console, /worst event-loop lag 900 ms/);

  const html = conformanceHtml(report);
  assert.match(
    html,
    /<button type="button" data-filter="INCONCLUSIVE">INCONCLUSIVE \(1\)<\/button>/,
  );
  assert.match(html, /<tr class="requirement" data-verdict="INCONCLUSIVE">/);
  assert.match(html, /<span class="verdict inconclusive">INCONCLUSIVE<\/span>/);
  assert.match(
    html,
    /<p class="overall-reason">1 requirement INCONCLUSIVE: the harness was starved<\/p>/,
  );

  const junit = junitXml(report);
  assert.match(junit, /failures="0" errors="1"/);
  assert.match(
    junit,
    /<error type="INCONCLUSIVE" message="INCONCLUSIVE: 1 of 1 scenarios could not decide: the harness&apos;s event loop stalled 900 ms/,
  );

  assert.match(badgeSvg(report), /INCOMPLETE · 1\/2 · 1 inconclusive/);
});
