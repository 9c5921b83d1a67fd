/**
 * Writes a report as JSON with its numeric cells as doubles, the way the analytics component (Java,
 * Jackson) writes a Double: an integral value keeps a fractional part (42 is written 42.0). Date
 * cells are already strings of milliseconds. Numbers nested inside JSON-valued cells are written as
 * they are.
 */
import { LosslessNumber, stringify } from 'lossless-json';
import type { Report } from './build-report';
import { type StepFaults, withFaults } from '../../faults/steps';

/** The steps of writing a report (the faults below wrap them). */
interface ReportJsonSteps {
  /** The JSON lexeme of a number as a double: 42 -> "42.0", 21.5 -> "21.5", 1e21 -> "1e+21". */
  lexeme(value: number): string;
  /** A numeric cell as written, given its lexeme. */
  number(lexeme: string, value: number): unknown;
  /** The rows as written. */
  dataTable(rows: Array<Record<string, unknown>>): unknown[];
  columnLabels(labels: string[]): string[];
}

const REPORT_JSON_STEPS: ReportJsonSteps = {
  lexeme: (value) => {
    const text = String(value);
    return /^-?\d+$/.test(text) ? `${text}.0` : text;
  },
  number: (lexeme) => new LosslessNumber(lexeme),
  dataTable: (rows) => rows,
  columnLabels: (labels) => labels,
};

const REPORT_JSON_FAULTS: StepFaults<ReportJsonSteps> = {
  'AN-RES-04:integral-without-fraction': { lexeme: () => (value) => String(value) },
  'AN-RES-04:numbers-as-strings': { number: () => (_lexeme, value) => String(value) },
  'AN-RES-02:rows-as-arrays': { dataTable: () => (rows) => rows.map((row) => Object.values(row)) },
  'AN-RES-02:rows-repeated': {
    dataTable: (step) => (rows) => step(rows.flatMap((row) => [row, row])),
  },
  'AN-RES-01:labels-lower-case': {
    columnLabels: (step) => (labels) => step(labels).map((label) => label.toLowerCase()),
  },
};

export function reportJson(report: Report): string {
  const steps = withFaults(REPORT_JSON_STEPS, REPORT_JSON_FAULTS);
  const rows = report.dataTable.map((row) =>
    Object.fromEntries(
      Object.entries(row).map(([label, cell]) => [
        label,
        typeof cell === 'number' ? steps.number(steps.lexeme(cell), cell) : cell,
      ]),
    ),
  );
  return (
    stringify({
      columnLabels: steps.columnLabels(report.columnLabels),
      dataTable: steps.dataTable(rows),
    }) ?? '{}'
  );
}
