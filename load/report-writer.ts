/**
 * The one writer of load reports: reports/load/<profile>.json (the whole report, its per-second
 * series included) and .html (verdict, thresholds, totals, errors by kind, and time-series charts
 * of rate, latency and errors).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { LoadReport } from './load-report';
import { detailsHtml } from './details-html';
import { escapeHtml, loadReportPage } from './html';
import { CHART_COLORS, lineChart, type ChartLine } from './time-series-svg';

export function writeLoadReport(
  report: LoadReport,
  reportsDir: string,
  rawLatencies?: readonly number[],
): { json: string; html: string } {
  const dir = resolve(reportsDir, 'load');
  mkdirSync(dir, { recursive: true });
  const json = join(dir, `${report.profile}.json`);
  const html = join(dir, `${report.profile}.html`);
  writeFileSync(json, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(html, loadReportHtml(report));
  if (rawLatencies)
    writeFileSync(
      join(dir, `${report.profile}.latencies.json`),
      `${JSON.stringify(rawLatencies)}\n`,
    );
  return { json, html };
}

/** Per-second values: a sample's count over its interval. */
function perSecond(count: number, intervalMs: number): number | null {
  return intervalMs > 0 ? Math.round((count / intervalMs) * 100_000) / 100 : null;
}

function loadReportHtml(report: LoadReport): string {
  const at = (elapsedMs: number) => elapsedMs / 1000;
  const rate: ChartLine[] = [
    {
      label: 'sent/s',
      color: CHART_COLORS[0],
      points: report.series.map((s) => [at(s.elapsedMs), perSecond(s.sent, s.intervalMs)]),
    },
    {
      label: 'succeeded/s',
      color: CHART_COLORS[2],
      points: report.series.map((s) => [at(s.elapsedMs), perSecond(s.succeeded, s.intervalMs)]),
    },
  ];
  const latency: ChartLine[] = (['p50', 'p99', 'max'] as const).map((name, i) => ({
    label: name,
    color: CHART_COLORS[i],
    points: report.series.map((s) => [at(s.elapsedMs), s.latency ? s.latency[name] : null]),
  }));
  const kinds = Object.keys(report.totals.errors);
  const errors: ChartLine[] = kinds.map((kind, i) => ({
    label: kind,
    color: CHART_COLORS[i % CHART_COLORS.length],
    points: report.series.map((s) => [
      at(s.elapsedMs),
      perSecond(s.errors[kind] ?? 0, s.intervalMs),
    ]),
  }));
  const row = (cells: unknown[], header = false) =>
    `<tr>${cells.map((cell, i) => (header || i === 0 ? `<th style="text-align:left">${escapeHtml(cell)}</th>` : `<td>${escapeHtml(cell)}</td>`)).join('')}</tr>`;
  const thresholds = report.thresholds.length
    ? `<table>${row(['threshold', 'actual', 'verdict'], true)}${report.thresholds
        .map((t) => row([t.source, t.actual ?? 'not measured', t.verdict]))
        .join('')}</table>`
    : '<p>No threshold: nothing decided the verdict.</p>';
  const metrics = `<table>${Object.entries(report.metrics)
    .map(([name, value]) => row([name, value ?? 'not measured']))
    .join('')}</table>`;
  const errorTable = kinds.length
    ? `<table>${row(['kind', 'count'], true)}${Object.entries(report.totals.errors)
        .sort(([, a], [, b]) => b - a)
        .map(([kind, count]) => row([kind, count]))
        .join('')}</table>`
    : report.totals.refused
      ? '<p>No errors: every request got a success answer or the refusal the profile probes for.</p>'
      : '<p>No errors: every request got a success answer.</p>';
  // the answers the profile expects and counts apart (the rate-limit probe's 429s): not errors
  const refusedTable = report.totals.refused
    ? `<p>Refused, as the profile expects (not errors):</p><table>${row(['kind', 'count'], true)}${Object.entries(
        report.totals.refused,
      )
        .map(([kind, count]) => row([kind, count]))
        .join('')}</table>`
    : '';
  const notes = report.notes.length
    ? `<ul>${report.notes.map((note) => `<li>${escapeHtml(note)}</li>`).join('')}</ul>`
    : '';
  return loadReportPage(
    `${report.title}: ${report.target}`,
    `<h1>${escapeHtml(report.title)} on “${escapeHtml(report.target)}”: ${escapeHtml(report.verdict)}</h1>
<p>Run ${escapeHtml(report.runId)}${report.shard ? `, shard ${report.shard.index} of ${report.shard.count}` : ''} started ${escapeHtml(report.startedAt)}${report.startAt ? ` (shared start ${escapeHtml(report.startAt)})` : ''}; sending ${escapeHtml(report.durationMs.sending)} ms, ${escapeHtml(report.durationMs.total)} ms in all. Options: <code>${escapeHtml(JSON.stringify(report.options))}</code></p>
${notes}
<h2>Thresholds</h2>
${thresholds}
<h2>Metrics</h2>
${metrics}
<h2>Errors by kind</h2>
${errorTable}
${refusedTable}
<h2>Over time (latency: ${escapeHtml(report.latencyMeasures)})</h2>
${lineChart('Rate', 'per second', rate)}
${lineChart('Latency', 'ms', latency)}
${errors.length ? lineChart('Errors', 'per second', errors) : ''}
<h2>Details</h2>
${detailsHtml(report.details)}`,
  );
}
