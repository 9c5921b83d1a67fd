/**
 * Escaping for HTML and XML text and attribute values: the one helper every page and SVG the
 * project writes uses (conformance.html, the badge, load reports, the platform's landing page).
 */
export function escapeHtml(text: unknown): string {
  return String(text ?? '').replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
