/**
 * reports/conformance.html: the conformance report for people. One self-contained page (no network): the summary per
 * interface, then every requirement with its verdict and the scenarios that decided it, filterable by verdict.
 * Built from the same ConformanceReport as conformance.json; text is HTML-escaped, secrets were redacted before.
 */
import type { ConformanceReport } from './conformance';
import { describeExchange, type Exchange } from './exchanges';
import { overallReason, overallVerdict } from './overall';
import { networkLine } from './verdicts';
import { escapeHtml } from '../../lib/html';
import { REQUIREMENT_VERDICTS } from '../../schemas/conformance';

const VERDICT_CLASS: Record<string, string> = {
  PASS: 'pass',
  FAIL: 'fail',
  DEVIATION: 'deviation',
  INCONCLUSIVE: 'inconclusive',
  'NOT APPLICABLE': 'na',
  'NOT TESTED': 'untested',
};

/** The exchanges of one scenario, collapsed: one line each, the bodies under it. */
function exchangesHtml(exchanges: readonly Exchange[] | undefined, open = false): string {
  if (!exchanges?.length) return '';
  const items = exchanges
    .map((exchange) => {
      const sent = exchange.protocol === 'http' ? exchange.request.body : exchange.request.payload;
      const answered = exchange.protocol === 'http' ? exchange.response.body : undefined;
      const headers =
        exchange.protocol === 'http' && exchange.request.headers
          ? Object.entries(exchange.request.headers)
              .map(([name, value]) => `${name}: ${value}`)
              .join('\n')
          : '';
      const request = [headers, sent].filter(Boolean).join('\n\n');
      return (
        `<li><code>${escapeHtml(describeExchange(exchange))}</code> <span class="via">${escapeHtml(exchange.via)} · ${exchange.elapsedMs} ms</span>` +
        (request ? `<pre class="sent">${escapeHtml(request)}</pre>` : '') +
        (answered ? `<pre class="answered">${escapeHtml(answered)}</pre>` : '') +
        (exchange.reproduce
          ? `<pre class="reproduce">${escapeHtml(exchange.reproduce)}</pre>`
          : '') +
        '</li>'
      );
    })
    .join('');
  return `<details class="evidence"${open ? ' open' : ''}><summary>evidence: ${exchanges.length} exchange(s)</summary><ol>${items}</ol></details>`;
}

export function conformanceHtml(report: ConformanceReport): string {
  const summaryRows = report.summary
    .map(
      (row) =>
        `<tr><th>${escapeHtml(row.interface)}</th><td>${row.requirements}</td><td>${row.testable}</td><td>${row.tested}</td>` +
        `<td class="pass">${row.verdicts.PASS}</td><td class="fail">${row.verdicts.FAIL}</td><td class="deviation">${row.verdicts.DEVIATION}</td><td class="inconclusive">${row.verdicts.INCONCLUSIVE ?? 0}</td>` +
        `<td class="na">${row.verdicts['NOT APPLICABLE']}</td><td class="untested">${row.verdicts['NOT TESTED']}</td></tr>`,
    )
    .join('\n');
  const requirementRows = report.requirements
    .map((requirement) => {
      const scenarios = requirement.scenarios
        .map(
          (scenario) =>
            `<li><span class="status ${scenario.status.toLowerCase()}">${escapeHtml(scenario.status)}</span> ${escapeHtml(scenario.name)} <code>${escapeHtml(scenario.location)}</code>` +
            (scenario.error ? `<pre>${escapeHtml(scenario.error.slice(0, 2000))}</pre>` : '') +
            exchangesHtml(scenario.exchanges, requirement.verdict === 'FAIL') +
            '</li>',
        )
        .join('');
      const verdictClass = VERDICT_CLASS[requirement.verdict] ?? 'untested';
      return (
        `<tr class="requirement" data-verdict="${escapeHtml(requirement.verdict)}">` +
        `<td><code>${escapeHtml(requirement.id)}</code></td><td>${escapeHtml(requirement.interface)}</td>` +
        `<td><span class="verdict ${verdictClass}">${escapeHtml(requirement.verdict)}</span>${requirement.reason ? `<div class="note">${escapeHtml(requirement.reason)}</div>` : ''}</td>` +
        `<td>${escapeHtml(requirement.level)}${requirement.testable ? '' : ' · not testable'}</td>` +
        `<td>${escapeHtml(requirement.statement)}${requirement.note ? `<div class="note">${escapeHtml(requirement.note)}</div>` : ''}` +
        // a requirement that is not a statement of the specification (robustness) says where it comes from
        (requirement.source
          ? `<div class="note">Source: ${escapeHtml(requirement.source)}</div>`
          : '') +
        (scenarios
          ? `<details${requirement.verdict === 'FAIL' ? ' open' : ''}><summary>${requirement.scenarios.length} scenario(s)</summary><ul>${scenarios}</ul></details>`
          : '') +
        '</td></tr>'
      );
    })
    .join('\n');
  const verdicts = ['ALL', ...REQUIREMENT_VERDICTS];
  const buttons = verdicts
    .map((verdict) => {
      const count =
        verdict === 'ALL'
          ? report.requirements.length
          : report.requirements.filter((requirement) => requirement.verdict === verdict).length;
      return `<button type="button" data-filter="${escapeHtml(verdict)}"${verdict === 'ALL' ? ' class="active"' : ''}>${escapeHtml(verdict)} (${count})</button>`;
    })
    .join(' ');
  const overall = overallVerdict(report);
  const overallClass = overall.toLowerCase().replace(' ', '-');
  const because = overallReason(report);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>iotc conformance: ${escapeHtml(report.target.name)}</title>
<style>
  body { font: 14px/1.45 system-ui, sans-serif; margin: 2rem; color: #1d2330; }
  h1 { font-size: 1.5rem; margin-bottom: .2rem; } .meta { color: #5b6475; margin-bottom: 1.5rem; }
  table { border-collapse: collapse; width: 100%; margin-bottom: 1.5rem; }
  th, td { border-bottom: 1px solid #e3e6ec; padding: .35rem .6rem; text-align: left; vertical-align: top; }
  table.summary td { text-align: right; } table.summary { width: auto; } table.summary th { white-space: nowrap; }
  .verdict { font-weight: 600; padding: .1rem .45rem; border-radius: .3rem; white-space: nowrap; }
  .pass { color: #11643a; } .verdict.pass { background: #d9f3e5; }
  .fail { color: #a11b1b; } .verdict.fail { background: #fbdcdc; }
  .deviation { color: #8a5a00; } .verdict.deviation { background: #fcefd2; }
  .inconclusive { color: #6a3d9a; } .verdict.inconclusive { background: #ece2f6; } .status.inconclusive { color: #6a3d9a; }
  .na { color: #5b6475; } .verdict.na { background: #eceef2; }
  .untested { color: #5b6475; } .verdict.untested { background: #f4f5f8; }
  .status { font-size: .8em; font-weight: 600; } .status.passed { color: #11643a; } .status.failed { color: #a11b1b; }
  .note { color: #5b6475; font-size: .9em; } pre { white-space: pre-wrap; background: #f6f7f9; padding: .5rem; }
  .evidence ol { padding-left: 1.4rem; } .evidence li { margin: .3rem 0; } .via { color: #5b6475; font-size: .85em; }
  .evidence pre { margin: .2rem 0; font-size: .85em; max-height: 12rem; overflow: auto; word-break: break-all; }
  pre.sent { border-left: 3px solid #9fb3d9; } pre.answered { border-left: 3px solid #9fd9b5; } pre.reproduce { border-left: 3px solid #d9c49f; }
  button { margin-right: .3rem; padding: .3rem .7rem; border: 1px solid #c9ced8; background: #fff; border-radius: .3rem; cursor: pointer; }
  button.active { background: #1d2330; color: #fff; } #shown { color: #5b6475; margin-left: .5rem; }
  #filters { margin-bottom: .6rem; }
  /* the statement is what a reader reads: the other columns are narrow and wrap, so that it stays in view at 1280 px */
  #requirements { table-layout: fixed; } #requirements td:nth-child(1) code { white-space: nowrap; }
  #requirements th:nth-child(1) { width: 9.5rem; } #requirements th:nth-child(2) { width: 8.5rem; }
  #requirements th:nth-child(3) { width: 16rem; } #requirements th:nth-child(4) { width: 6rem; }
  #requirements td { overflow-wrap: anywhere; }
  td, pre, code { overflow-wrap: break-word; }
  .overall { display: inline-block; font-size: 1.1rem; font-weight: 700; padding: .3rem .8rem; border-radius: .35rem; margin: .4rem 0 .8rem; }
  .overall.conformant { background: #d9f3e5; color: #11643a; } .overall.not-conformant { background: #fbdcdc; color: #a11b1b; }
  .overall.incomplete { background: #fcefd2; color: #8a5a00; } .overall.not-tested { background: #eceef2; color: #5b6475; }
  dl.provenance { display: grid; grid-template-columns: max-content 1fr; gap: .15rem 1rem; color: #3b4352; margin: 0 0 1.5rem; }
  dl.provenance dt { font-weight: 600; } dl.provenance dd { margin: 0; font-family: ui-monospace, monospace; font-size: .9em; }
  @media print {
    @page { size: A4; margin: 15mm; }
    body { margin: 0; font-size: 10pt; } #filters, #shown, #none, button { display: none !important; }
    tr.requirement { display: table-row !important; break-inside: avoid; }
    #requirements { table-layout: fixed; } #requirements th, #requirements td { padding: .15rem .3rem; }
    #requirements th:nth-child(1) { width: 17%; } #requirements th:nth-child(2) { width: 17%; }
    #requirements th:nth-child(3) { width: 15%; } #requirements th:nth-child(4) { width: 9%; }
    #requirements td:nth-child(2) { white-space: normal; } .note { display: none; }
    details { display: block; } details > summary { list-style: none; }
    tr.requirement:not([data-verdict="FAIL"]) details { display: none; }
    .evidence pre, pre { max-height: none; overflow: visible; }
    h2 { break-after: avoid; }
  }
</style>
</head>
<body>
<h1>Conformance of “${escapeHtml(report.target.name)}”</h1>
<div class="overall ${overallClass}">${escapeHtml(overall)}</div>${because ? `<p class="overall-reason">${escapeHtml(because)}</p>` : ''}
<div class="meta">iotc ${escapeHtml(report.tool.version)} · ${escapeHtml(report.run.startedAt)} · ${Math.round(report.run.durationMs / 100) / 10} s ·
HTTP ${escapeHtml(report.target.httpUrl)} · capabilities: ${escapeHtml(report.target.capabilities.join(', ') || 'none')}</div>
${report.run.couldNotTest ? `<p class="could-not-test"><strong>Nothing was tested:</strong> ${escapeHtml(report.run.couldNotTest)}</p>` : ''}
${report.run.interrupted ? `<p class="could-not-test"><strong>Interrupted:</strong> ${escapeHtml(report.run.interrupted)}; this report holds only what ran until then.</p>` : ''}
${provenanceHtml(report)}
<h2>Summary per interface</h2>
<table class="summary">
<tr><th>interface</th><th>requirements</th><th>testable</th><th>tested</th><th>PASS</th><th>FAIL</th><th>DEVIATION</th><th>INCONCLUSIVE</th><th>N/A</th><th>NOT TESTED</th></tr>
${summaryRows}
</table>
<h2>Requirements</h2>
<div id="filters">${buttons} <span id="shown">${report.requirements.length} of ${report.requirements.length} requirements shown</span></div>
<p id="none" hidden>No requirement has this verdict.</p>
<table id="requirements">
<tr><th>id</th><th>interface</th><th>verdict</th><th>level</th><th>statement</th></tr>
${requirementRows}
</table>
<script>
  // Filter by verdict. The state lives in the URL (#verdict=FAIL), so a filtered view can be linked to.
  const buttons = Array.from(document.querySelectorAll('#filters button'));
  const rows = Array.from(document.querySelectorAll('tr.requirement'));
  function show(wanted) {
    const filter = buttons.some((button) => button.dataset.filter === wanted) ? wanted : 'ALL';
    for (const button of buttons) button.classList.toggle('active', button.dataset.filter === filter);
    let shown = 0;
    for (const row of rows) {
      row.hidden = filter !== 'ALL' && row.dataset.verdict !== filter;
      if (!row.hidden) shown += 1;
    }
    document.getElementById('filters').dataset.active = filter;
    document.getElementById('shown').textContent = shown + ' of ' + rows.length + ' requirements shown';
    document.getElementById('none').hidden = shown > 0;
  }
  const fromUrl = () => new URLSearchParams(location.hash.slice(1)).get('verdict') || 'ALL';
  for (const button of buttons) {
    button.addEventListener('click', () => {
      history.replaceState(null, '', '#verdict=' + encodeURIComponent(button.dataset.filter));
      show(button.dataset.filter);
    });
  }
  window.addEventListener('hashchange', () => show(fromUrl()));
  show(fromUrl());
</script>
</body>
</html>
`;
}

/** How loaded the harness was: per worker its event-loop lag over the run and the delays it measured. */
function harnessRows(report: ConformanceReport): Array<[string, string]> {
  return (report.run.harness ?? []).map((worker, index) => {
    const delays = Object.entries(worker.measuredDelays)
      .map(([kind, { maxMs, count }]) => `${kind} max ${maxMs} ms (${count})`)
      .join(', ');
    const lag = worker.eventLoopLagMs;
    return [
      `harness worker ${index + 1}`,
      `event-loop lag max ${lag.max} ms · p99 ${lag.p99} ms · mean ${lag.mean} ms${delays ? ` · measured delays: ${delays}` : ''}${worker.network ? ` · network: ${networkLine(worker.network)}` : ''}`,
    ];
  });
}

/** What the report stands on: iotc commit, catalogue and specification hashes, environment, selection, timing. */
function provenanceHtml(report: ConformanceReport): string {
  const p = report.provenance;
  if (!p) return '';
  const rows: Array<[string, string]> = [
    [
      'iotc',
      `${p.iotc.version}${p.iotc.commit ? ` · commit ${p.iotc.commit}${p.iotc.modified ? ' (modified)' : ''}` : ''}`,
    ],
    [
      'selection',
      p.selection.full
        ? 'the full suite'
        : `partial: ${[p.selection.tags, ...p.selection.paths].filter(Boolean).join(' ')}`,
    ],
    [
      'catalogue',
      `${p.catalogue.file} · ${p.catalogue.requirements} requirements · sha256 ${p.catalogue.sha256}`,
    ],
    [
      'specification',
      `${p.specification.file}${p.specification.sha256 ? ` · sha256 ${p.specification.sha256}` : ''}${p.specification.matchesCatalogue === false ? ' · CHANGED since the catalogue was written' : ''}`,
    ],
    ['environment', `Node ${p.environment.node} · ${p.environment.os}`],
    ['run', `${report.run.startedAt} → ${report.run.finishedAt}`],
    ...harnessRows(report),
    [
      'target',
      `${report.target.name} · HTTP ${report.target.httpUrl} · admin ${report.target.adminUrl}`,
    ],
  ];
  return `<dl class="provenance">${rows.map(([term, value]) => `<dt>${escapeHtml(term)}</dt><dd>${escapeHtml(value)}</dd>`).join('')}</dl>`;
}
