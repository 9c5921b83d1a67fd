/**
 * reports/faults.json and reports/faults.html of the kill matrix, and the summary it prints. The
 * page is plain HTML with inline CSS, like conformance.html: the clean runs (the reference's
 * baseline, a certification per client under test), one table of faults with the role each breaks,
 * survivors first, and the uncovered requirements.
 */
import { escapeHtml } from '../../lib/html';
import type { MatrixResult } from './matrix';

export function matrixSummary(result: MatrixResult, allowUncovered: boolean): string {
  const { summary } = result;
  const ratio = summary.faults ? ((summary.killed / summary.faults) * 100).toFixed(1) : '0.0';
  const lines = [
    `Kill matrix on target "${result.target}": ${summary.faults} faults (${summary.faults - summary.clientFaults} of the reference, ${summary.clientFaults} of clients under test) of ${summary.requirementsWithFaults} requirements, ${summary.killed} killed, ${summary.survived} survived, ${summary.notJudged} not judged (kill ratio ${ratio} %), ${(result.durationMs / 1000).toFixed(1)} s`,
  ];
  if (!result.baseline.ok)
    lines.push(
      `  THE MATRIX IS NOT MEANINGFUL: with no fault on, ${result.baseline.notPassing.length} requirements do not PASS: ${result.baseline.notPassing.map((entry) => `${entry.id} ${entry.verdict}${entry.failure?.step ? ` (${entry.failure.step})` : ''}`).join('; ')}`,
    );
  for (const control of result.clients.filter((entry) => !entry.ok))
    lines.push(
      `  THE CLIENT MATRIX OF ${control.client} IS NOT MEANINGFUL: the clean client does not certify: ${control.reason}`,
    );
  for (const fault of result.faults.filter((entry) => entry.outcome === 'survived'))
    lines.push(`  SURVIVED ${fault.id}: ${fault.breaks}; ${fault.reason ?? ''}`);
  for (const fault of result.faults.filter(
    (entry) => entry.outcome === 'killed' && (entry.attempts ?? 1) > 1,
  ))
    lines.push(
      `  RACY ${fault.id}: killed only at attempt ${fault.attempts}; its scenario sees the fault only when a race goes one way and needs to be made deterministic`,
    );
  if (result.selection.clientsLeftOut) lines.push(`  LEFT OUT: ${result.selection.clientsLeftOut}`);
  if (summary.uncovered)
    lines.push(
      `  ${allowUncovered ? 'UNCOVERED (allowed for now)' : 'UNCOVERED'}: ${summary.uncovered} testable requirements have no fault: ${result.uncovered.map((entry) => entry.id).join(', ')}`,
    );
  return lines.join('\n');
}

/**
 * 0 only when the baseline and every client's control passed, every fault was killed and (unless
 * allowed) every requirement has a fault.
 */
export function matrixExitCode(result: MatrixResult, allowUncovered: boolean): number {
  const failed =
    !result.baseline.ok ||
    result.clients.some((control) => !control.ok) ||
    result.summary.survived > 0 ||
    result.summary.notJudged > 0 ||
    (!allowUncovered && result.summary.uncovered > 0);
  return failed ? 1 : 0;
}

export function matrixHtml(result: MatrixResult): string {
  const order = { survived: 0, 'not judged': 1, killed: 2 } as const;
  const rows = [...result.faults]
    .sort((a, b) => order[a.outcome] - order[b.outcome] || a.id.localeCompare(b.id))
    .map(
      (fault) =>
        `<tr class="${fault.outcome === 'killed' ? 'killed' : 'survived'}"><td><code>${escapeHtml(fault.id)}</code></td>` +
        `<td>${escapeHtml(fault.role ?? '')}${fault.client ? `<br><small>client ${escapeHtml(fault.client)}</small>` : ''}</td>` +
        `<td>${escapeHtml(fault.requirement)}</td><td>${escapeHtml(fault.outcome)}${fault.verdict ? ` (${escapeHtml(fault.verdict)})` : ''}</td>` +
        `<td>${escapeHtml(fault.breaks)}</td>` +
        `<td>${fault.failure ? `${escapeHtml(fault.failure.scenario)}<br><small>${escapeHtml(fault.failure.location)}</small><br>step: <code>${escapeHtml(fault.failure.step ?? '')}</code><pre>${escapeHtml(fault.failure.error ?? '')}</pre>` : escapeHtml(fault.reason ?? '')}</td>` +
        `<td>${(fault.durationMs / 1000).toFixed(1)} s</td></tr>`,
    )
    .join('\n');
  const uncovered = result.uncovered
    .map(
      (entry) =>
        `<li><code>${escapeHtml(entry.id)}</code> (${escapeHtml(entry.interface)}): ${escapeHtml(entry.statement)}</li>`,
    )
    .join('\n');
  const { summary } = result;
  const baseline = !result.baseline.requirements
    ? '<p>No fault of the reference in this run.</p>'
    : result.baseline.ok
      ? `<p>Baseline of the reference: all ${result.baseline.requirements} requirements PASS with no fault on.</p>`
      : `<p class="survived">The matrix is not meaningful: with no fault on, ${result.baseline.notPassing
          .map((entry) => `${escapeHtml(entry.id)} is ${escapeHtml(entry.verdict)}`)
          .join(', ')}.</p>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>iotc kill matrix</title>
<style>
  body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5rem; color: #1d2330; }
  table { border-collapse: collapse; width: 100%; } td, th { border-bottom: 1px solid #e3e6ec; padding: .35rem .5rem; text-align: left; vertical-align: top; }
  .killed td:nth-child(4) { color: #11643a; } .survived td:nth-child(4), p.survived { color: #a11b1b; font-weight: 600; }
  pre { white-space: pre-wrap; margin: .2rem 0; font-size: 12px; color: #5b6475; }
</style></head><body>
<h1>Kill matrix (${escapeHtml(result.target)})</h1>
<p>${summary.faults} faults (${summary.faults - summary.clientFaults} of the reference, ${summary.clientFaults} of clients under test) of ${summary.requirementsWithFaults} requirements: ${summary.killed} killed, ${summary.survived} survived, ${summary.notJudged} not judged; ${summary.uncovered} testable requirements without a fault. ${(result.durationMs / 1000).toFixed(1)} s, started ${escapeHtml(result.startedAt)}.</p>
${baseline}
${result.selection.clientsLeftOut ? `<p class="survived">${escapeHtml(result.selection.clientsLeftOut)}.</p>` : ''}
${clientControls(result)}
<table><thead><tr><th>fault</th><th>role</th><th>requirement</th><th>outcome</th><th>breaks</th><th>failing scenario and step</th><th>time</th></tr></thead>
<tbody>
${rows}
</tbody></table>
<h2>Testable requirements without a fault (${summary.uncovered})</h2>
<ul>
${uncovered}
</ul>
</body></html>
`;
}

/**
 * One line per client under test: its clean certification, which its faults' runs must match but
 * for one FAIL.
 */
function clientControls(result: MatrixResult): string {
  return result.clients
    .map((control) =>
      control.ok
        ? `<p>Control of the client ${escapeHtml(control.client)}: certified clean, all ${Object.keys(control.verdicts).length} requirements PASS.</p>`
        : `<p class="survived">The faults of the client ${escapeHtml(control.client)} cannot be judged: ${escapeHtml(control.reason ?? '')}.</p>`,
    )
    .join('\n');
}
