/**
 * What the HTML pages of the load profiles share: escaping and the page shell (one inline style, no
 * scripts or external resources, so a page opens offline and as a CI artifact).
 */
import { escapeHtml } from '../lib/html';

export { escapeHtml };

export function loadReportPage(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>body{font:14px/1.4 system-ui,sans-serif;margin:2rem;color:#1d2330} table{border-collapse:collapse} td,th{padding:.2rem .6rem;border-bottom:1px solid #e3e6ec;text-align:right}</style>
</head><body>
${body}
</body></html>
`;
}
