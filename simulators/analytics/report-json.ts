/**
 * Writes a report as JSON with its numeric cells as doubles, the way the analytics component (Java, Jackson)
 * writes a Double: an integral value keeps a fractional part (42 is written 42.0). Date cells are already strings of
 * milliseconds. Numbers nested inside JSON-valued cells are written as they are.
 */
import { LosslessNumber, stringify } from 'lossless-json';
import type { Report } from './build-report';
import { faultActive } from '../../faults';

/** The JSON lexeme of `value` as a double: 42 -> "42.0", 21.5 -> "21.5", 1e21 -> "1e+21". */
function doubleLexeme(value: number): string {
  const text = String(value);
  if (faultActive('AN-RES-04:integral-without-fraction')) return text;
  return /^-?\d+$/.test(text) ? `${text}.0` : text;
}

export function reportJson(report: Report): string {
  const numeric = (cell: number) =>
    faultActive('AN-RES-04:numbers-as-strings')
      ? String(cell)
      : new LosslessNumber(doubleLexeme(cell));
  const rows = report.dataTable.map((row) =>
    Object.fromEntries(
      Object.entries(row).map(([label, cell]) => [
        label,
        typeof cell === 'number' ? numeric(cell) : cell,
      ]),
    ),
  );
  const dataTable = faultActive('AN-RES-02:rows-as-arrays')
    ? rows.map((row) => Object.values(row))
    : faultActive('AN-RES-02:rows-repeated')
      ? rows.flatMap((row) => [row, row])
      : rows;
  const columnLabels = faultActive('AN-RES-01:labels-lower-case')
    ? report.columnLabels.map((label) => label.toLowerCase())
    : report.columnLabels;
  return stringify({ columnLabels, dataTable }) ?? '{}';
}
