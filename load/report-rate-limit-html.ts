/**
 * The HTML page of the report-rate-limit probe: accepted and rejected requests per concurrency step as bars, the
 * median latency as a line, the observed and declared limits as markers. Inline SVG written here: the page must open
 * offline, and a chart library would have to be bundled into it.
 */
import type { ProbeReport } from './report-rate-limit';
import { escapeHtml, loadReportPage } from './html';

export function reportRateLimitHtml(report: ProbeReport): string {
  const width = 760;
  const height = 300;
  const left = 50;
  const bottom = 260;
  const steps = report.steps;
  const barWidth = steps.length ? (width - left - 20) / steps.length : 0;
  const maxRequests = Math.max(1, ...steps.map((step) => step.accepted + step.rejected));
  const maxLatency = Math.max(1, ...steps.map((step) => step.p50Ms));
  const y = (value: number, max: number) => bottom - (value / max) * (bottom - 20);
  const bars = steps
    .map((step, i) => {
      const x = left + i * barWidth;
      const acceptedTop = y(step.accepted, maxRequests);
      const rejectedTop = y(step.accepted + step.rejected, maxRequests);
      return (
        `<rect x="${x + 2}" y="${acceptedTop}" width="${barWidth - 4}" height="${bottom - acceptedTop}" fill="#5aa469"><title>c=${step.concurrency}: ${step.accepted} × 200</title></rect>` +
        `<rect x="${x + 2}" y="${rejectedTop}" width="${barWidth - 4}" height="${acceptedTop - rejectedTop}" fill="#d35d5d"><title>c=${step.concurrency}: ${step.rejected} × 429</title></rect>` +
        `<text x="${x + barWidth / 2}" y="${bottom + 14}" font-size="10" text-anchor="middle">${step.concurrency}</text>`
      );
    })
    .join('');
  const line = steps
    .map((step, i) => `${left + i * barWidth + barWidth / 2},${y(step.p50Ms, maxLatency)}`)
    .join(' ');
  const marker = (concurrency: number | null | undefined, color: string, label: string) =>
    concurrency === null || concurrency === undefined
      ? ''
      : `<line x1="${left + concurrency * barWidth}" x2="${left + concurrency * barWidth}" y1="20" y2="${bottom}" stroke="${color}" stroke-dasharray="4 3"/>` +
        `<text x="${left + concurrency * barWidth + 3}" y="30" font-size="11" fill="${color}">${escapeHtml(label)}</text>`;
  const observedAdmitted =
    report.observed.poolSize !== null && report.observed.queueCapacity !== null
      ? report.observed.poolSize + report.observed.queueCapacity
      : null;
  const rows = steps
    .map(
      (step) =>
        `<tr><td>${step.concurrency}</td><td>${step.requests}</td><td>${step.accepted}</td><td>${step.rejected}</td><td>${step.p50Ms}</td><td>${step.p99Ms}</td></tr>`,
    )
    .join('');
  return loadReportPage(
    `Report rate limit: ${report.target}`,
    `<h1>Report rate limit of “${escapeHtml(report.target)}”: ${escapeHtml(report.verdict)}</h1>
<p>Observed pool <b>${escapeHtml(report.observed.poolSize ?? '?')}</b> and queue <b>${escapeHtml(report.observed.queueCapacity ?? '?')}</b>${
      report.declared
        ? `; declared pool ${report.declared.poolSize} and queue ${report.declared.queueCapacity}`
        : ''
    }. Single-request latency ${report.baselineMs} ms. Burst of ${report.burst.sent}: ${report.burst.accepted} accepted, ${report.burst.rejected} rejected,
429 answered in ${report.burst.rejectP50Ms} ms (median), ${report.burst.rejectMaxMs} ms at most; the fastest 200 took ${report.burst.acceptedMinMs} ms.</p>
<svg width="${width}" height="${height}" role="img" aria-label="requests and latency per concurrency step">
<text x="${left}" y="14" font-size="11">requests per step (green 200, red 429); line: median latency (max ${maxLatency} ms)</text>
${bars}
<polyline points="${line}" fill="none" stroke="#3559a8" stroke-width="2"/>
${marker(report.observed.poolSize, '#3559a8', 'pool')}
${marker(observedAdmitted, '#d35d5d', 'pool + queue')}
<text x="${width / 2}" y="${height - 5}" font-size="11" text-anchor="middle">concurrency</text>
</svg>
<table><tr><th>concurrency</th><th>requests</th><th>200</th><th>429</th><th>p50 ms</th><th>p99 ms</th></tr>${rows}</table>`,
  );
}
