/**
 * Reading Gherkin data tables so that no row is silently lost. Cucumber's `rows()` drops the first
 * row (it takes it for a header) and `hashes()` takes the first row for the column names: a
 * header-less table read with either loses its first expectation without a word. Header-less tables
 * are read here with `raw()`, and headed ones are checked to carry the column names their step
 * reads, so a table written the other way fails loudly.
 */
import type { DataTable } from './cucumber';
import { IotcError } from '../../lib/errors';

/** A table whose shape does not match what its step reads. */
export class DataTableShapeError extends IotcError {
  readonly code = 'IOTC_DATA_TABLE_SHAPE';
  constructor(message: string) {
    super(message);
  }
}

/** Every row of a header-less `| what | value |` table, the first included. */
export function pairRows(table: DataTable): Array<readonly [string, string]> {
  return table.raw().map((row, index) => {
    if (row.length !== 2)
      throw new DataTableShapeError(
        `row ${index + 1} of the table has ${row.length} cells, expected | what | value |`,
      );
    return [row[0]!, row[1]!] as const;
  });
}

/** The rows of a table whose first row names its columns; `required` must be among them. */
export function headedRows<Row extends Record<string, string | undefined>>(
  table: DataTable,
  required: readonly string[],
): Row[] {
  const header = table.raw()[0] ?? [];
  const missing = required.filter((column) => !header.includes(column));
  if (missing.length)
    throw new DataTableShapeError(
      `the table's first row must name the columns ${required.join(', ')} (missing ${missing.join(', ')}; first row | ${header.join(' | ')} |)`,
    );
  return table.hashes() as Row[];
}
