/**
 * The profile-specific part of a load report as HTML, the same way for every profile: a list of
 * flat records (the rate-limit probe's steps) is a table with a column per member, a flat record
 * (settings, readback counts) a table of name and value, anything deeper its JSON. So one writer
 * shows every profile's details without knowing them.
 */
import { escapeHtml } from './html';

type Scalar = string | number | boolean | null;

function isScalar(value: unknown): value is Scalar {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}

/**
 * A value as a cell: a scalar as itself, a small record of scalars as `name value, ...`, else JSON.
 */
function cell(value: unknown): string {
  if (isScalar(value)) return escapeHtml(value ?? '-');
  if (typeof value === 'object' && value && Object.values(value).every(isScalar))
    return escapeHtml(
      Object.entries(value)
        .map(([name, item]) => `${item}× ${name}`)
        .join(', ') || '-',
    );
  return `<code>${escapeHtml(JSON.stringify(value))}</code>`;
}

function section(name: string, value: unknown): string {
  const title = `<h3>${escapeHtml(name)}</h3>`;
  if (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((item) => typeof item === 'object' && item !== null && !Array.isArray(item))
  ) {
    const columns = [...new Set(value.flatMap((item) => Object.keys(item as object)))];
    const head = `<tr>${columns.map((column) => `<th>${escapeHtml(column)}</th>`).join('')}</tr>`;
    const rows = value
      .map(
        (item) =>
          `<tr>${columns.map((column) => `<td>${cell((item as Record<string, unknown>)[column])}</td>`).join('')}</tr>`,
      )
      .join('');
    return `${title}<table>${head}${rows}</table>`;
  }
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const rows = Object.entries(value)
      .map(
        ([member, item]) =>
          `<tr><th style="text-align:left">${escapeHtml(member)}</th><td>${cell(item)}</td></tr>`,
      )
      .join('');
    return `${title}<table>${rows}</table>`;
  }
  return `${title}<p>${cell(value)}</p>`;
}

export function detailsHtml(details: Record<string, unknown>): string {
  return Object.entries(details)
    .map(([name, value]) => section(name, value))
    .join('\n');
}
