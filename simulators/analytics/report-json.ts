/**
 * Writes a report as JSON with its numeric cells as doubles, the way the analytics component (Java, Jackson)
 * writes a Double: an integral value keeps a fractional part (42 is written 42.0). Date cells are already strings of
 * milliseconds. Numbers nested inside JSON-valued cells are written as they are.
 */
import { LosslessNumber, stringify } from 'lossless-json';
import type { Report } from './build-report';

/** The JSON lexeme of `value` as a double: 42 -> "42.0", 21.5 -> "21.5", 1e21 -> "1e+21". */
export function doubleLexeme(value: number): string {
  const text = String(value);
  return /^-?\d+$/.test(text) ? `${text}.0` : text;
}

export function reportJson(report: Report): string {
  const dataTable = report.dataTable.map((row) =>
    Object.fromEntries(
      Object.entries(row).map(([label, cell]) => [
        label,
        typeof cell === 'number' ? new LosslessNumber(doubleLexeme(cell)) : cell,
      ]),
    ),
  );
  return stringify({ columnLabels: report.columnLabels, dataTable }) ?? '{}';
}
