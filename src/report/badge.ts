/**
 * An SVG badge of a report's overall verdict, for a README or a CI page (shields-style, no web
 * fonts, no scripts).
 */
import type { ConformanceReport } from './conformance';
import { overallVerdict, type OverallVerdict } from './overall';
import { escapeHtml as escapeXml } from '../../lib/html';

const COLORS: Record<OverallVerdict, string> = {
  CONFORMANT: '#2e7d32',
  'PASS WITH WARNINGS': '#7cb342',
  'NOT CONFORMANT': '#c62828',
  INCOMPLETE: '#b26a00',
  'NOT TESTED': '#616161',
};

export function badgeSvg(report: ConformanceReport): string {
  const verdict = overallVerdict(report);
  const passed = report.requirements.filter((requirement) => requirement.verdict === 'PASS').length;
  const testable = report.requirements.filter((requirement) => requirement.testable).length;
  const left = 'iotc conformance';
  const inconclusive = report.requirements.filter(
    (requirement) => requirement.verdict === 'INCONCLUSIVE',
  ).length;
  // INCONCLUSIVE requirements are named on the badge: an INCOMPLETE run for lack of a decision is
  // not a short one
  const right = `${verdict} · ${passed}/${testable}${inconclusive ? ` · ${inconclusive} inconclusive` : ''}`;
  // a monospace-ish width estimate (7 px a character) keeps the badge legible without measuring
  // text
  const leftWidth = left.length * 7 + 12;
  const rightWidth = right.length * 7 + 12;
  const width = leftWidth + rightWidth;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="20" role="img" aria-label="${escapeXml(`${left}: ${right}`)}">
<title>${escapeXml(`${left}: ${right} (target ${report.target.name})`)}</title>
<rect width="${leftWidth}" height="20" fill="#555"/>
<rect x="${leftWidth}" width="${rightWidth}" height="20" fill="${COLORS[verdict]}"/>
<g fill="#fff" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11">
<text x="6" y="14">${escapeXml(left)}</text>
<text x="${leftWidth + 6}" y="14">${escapeXml(right)}</text>
</g>
</svg>
`;
}
