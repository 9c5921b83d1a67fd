/**
 * Saved table views: the built-in demo view plus those of an optional JSON file
 * (schemas/analytics-views.ts), checked at start by the schema and by the rules a schema cannot
 * state (unique ids and column labels, a saved range that ends after it starts).
 */
import { readFileSync } from 'node:fs';
import { validate } from '../../schemas/validate';
import { ViewsFileError } from './errors';
import {
  viewsFileSchema,
  type ColumnSource,
  type FilterSource,
  type TableViewFile,
} from '../../schemas/analytics-views';

export type RowMode = 'perTimestamp' | 'latest';
export type SavedRange = { startTs: number; endTs: number } | { lastMs: number };

/** A view with its defaults filled in. */
export interface TableView {
  id: string;
  name: string;
  devices: { names: string[] } | { nameContains: string };
  rows: RowMode;
  columns: Array<{ label: string; source: ColumnSource }>;
  filters: Record<string, { source: FilterSource; values: string[] }>;
  range: SavedRange;
  limit: number;
}

const DEFAULT_RANGE: SavedRange = { lastMs: 86_400_000 };
const DEFAULT_LIMIT = 1000;

/** The demo view: temperature and humidity of the platform's demo device over the last 24 hours. */
export const DEMO_VIEW: TableViewFile = {
  id: '7a1c2b64-0d3e-4f5a-9b8c-1d2e3f4a5b6c',
  name: 'Demo: temperature and humidity of Demo Device',
  devices: { names: ['Demo Device'] },
  rows: 'perTimestamp',
  columns: [
    { label: 'Date', source: { type: 'date' } },
    { label: 'Device', source: { type: 'deviceName' } },
    { label: 'temperature', source: { type: 'telemetry', key: 'temperature' } },
    { label: 'humidity', source: { type: 'telemetry', key: 'humidity' } },
  ],
  filters: { device: { source: { type: 'deviceName' }, values: ['Demo Device'] } },
  range: { lastMs: 86_400_000 },
};

function complete(view: TableViewFile): TableView {
  return {
    id: view.id.toLowerCase(),
    name: view.name,
    devices:
      'names' in view.devices
        ? { names: [...view.devices.names] }
        : { nameContains: view.devices.nameContains },
    rows: view.rows ?? 'perTimestamp',
    columns: view.columns.map((column) => ({ label: column.label, source: column.source })),
    filters: Object.fromEntries(
      Object.entries(view.filters ?? {}).map(([name, filter]) => [
        name,
        { source: filter.source, values: [...filter.values] },
      ]),
    ),
    range: view.range ?? DEFAULT_RANGE,
    limit: view.limit ?? DEFAULT_LIMIT,
  };
}

/** The rules beyond the schema; returns the reasons a view is wrong, empty when it is fine. */
function problemsOf(view: TableViewFile, where: string): string[] {
  const problems: string[] = [];
  const labels = new Set<string>();
  for (const column of view.columns) {
    if (labels.has(column.label))
      problems.push(`${where} column label "${column.label}" is repeated`);
    labels.add(column.label);
  }
  if (view.range && 'startTs' in view.range && view.range.startTs > view.range.endTs)
    problems.push(`${where} range.startTs is after range.endTs`);
  return problems;
}

/** Parses and checks the views of a file's text; throws ViewsFileError with every reason. */
export function parseViews(text: string, source = 'views file'): TableView[] {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new ViewsFileError(`${source} is not JSON: ${(error as Error).message}`);
  }
  const validation = validate(viewsFileSchema, document);
  if (!validation.ok)
    throw new ViewsFileError(`${source} is invalid: ${validation.errors.join('; ')}`);
  const views = (document as { views: TableViewFile[] }).views;
  const problems = views.flatMap((view, index) => problemsOf(view, `/views/${index}`));
  if (problems.length) throw new ViewsFileError(`${source} is invalid: ${problems.join('; ')}`);
  return views.map(complete);
}

/** The demo view and the views of `viewsFile`, by lower-case id; a repeated id is an error. */
export function loadViews(viewsFile?: string): Map<string, TableView> {
  const views = [complete(DEMO_VIEW)];
  if (viewsFile !== undefined) {
    let text: string;
    try {
      text = readFileSync(viewsFile, 'utf8');
    } catch (error) {
      throw new ViewsFileError(`cannot read views file ${viewsFile}: ${(error as Error).message}`);
    }
    views.push(...parseViews(text, viewsFile));
  }
  const byId = new Map<string, TableView>();
  for (const view of views) {
    if (byId.has(view.id))
      throw new ViewsFileError(
        `view id ${view.id} is used twice (the demo view has id ${DEMO_VIEW.id})`,
      );
    byId.set(view.id, view);
  }
  return byId;
}

/**
 * The range a report covers: the request's bounds where given, the view's saved range for the rest.
 */
export function savedRangeBounds(
  range: SavedRange,
  now: number,
): { startTs: number; endTs: number } {
  return 'lastMs' in range
    ? { startTs: now - range.lastMs, endTs: now }
    : { startTs: range.startTs, endTs: range.endTs };
}
