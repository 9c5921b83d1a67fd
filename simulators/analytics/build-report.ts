/**
 * Builds a report from what the devices actually sent, read from the platform with the caller's
 * JWT.
 *
 * Rows: `perTimestamp` (default) gives one row per device and distinct telemetry timestamp in the
 * range (a key without a value at that timestamp is null); `latest` gives one row per device with
 * the latest value of each telemetry key within the range and the newest of those timestamps as its
 * date. A device with no telemetry of the view's keys in the range gives no row, unless the view
 * reads no telemetry at all (then one row per device, date null). Attribute cells hold the
 * attribute's current value. Rows are ordered by date, then device name order. Filters: a row
 * passes a filter whose value list is non-empty when its value for the filter's source, as a string
 * (numbers in JavaScript's shortest form, JSON as JSON text), is in the list; an empty list lets
 * every row pass.
 */
import type { PlatformDevice, PlatformReader, TimeseriesPoint } from './platform-reader';
import type { ReportPlan } from './report-request';
import type { TableView } from './views';
import type { AttributeScope, ColumnSource } from '../../schemas/analytics-views';
import { type StepFaults, withFaults } from '../../faults/steps';

/** Devices read at the same time within one report. */
const DEVICE_CONCURRENCY = 4;

export interface Report {
  columnLabels: string[];
  /** Cells as plain values; report-json.ts writes numbers as doubles. */
  dataTable: Array<Record<string, unknown>>;
}

interface Row {
  device: PlatformDevice;
  deviceOrder: number;
  ts: number | null;
  telemetry: Map<string, unknown>;
  attributes: Map<string, unknown>;
}

const attributeSlot = (scope: string, key: string) => `${scope}\u0000${key}`;

function cellOf(source: ColumnSource, row: Row): unknown {
  switch (source.type) {
    case 'date':
      return row.ts === null ? null : String(row.ts);
    case 'deviceName':
      return row.device.name;
    case 'telemetry':
      return row.telemetry.has(source.key) ? row.telemetry.get(source.key) : null;
    case 'attribute':
      return row.attributes.has(attributeSlot(source.scope, source.key))
        ? row.attributes.get(attributeSlot(source.scope, source.key))
        : null;
  }
}

/** The step of writing a row that planted faults wrap (the table below). */
interface CellSteps {
  /** A column's cell of a row in the report. */
  cell(source: ColumnSource, row: Row): unknown;
}

const CELL_STEPS: CellSteps = { cell: cellOf };

const CELL_FAULTS: StepFaults<CellSteps> = {
  'AN-RES-03:date-as-number': {
    cell: (step) => (source, row) => (source.type === 'date' ? row.ts : step(source, row)),
  },
};

function filterText(value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

function passes(plan: ReportPlan, row: Row, which: (source: ColumnSource) => boolean): boolean {
  for (const [name, values] of Object.entries(plan.filters)) {
    const source = plan.view.filters[name].source;
    if (values.length === 0 || !which(source)) continue;
    const text = filterText(cellOf(source, row));
    if (text === undefined || !values.includes(text)) return false;
  }
  return true;
}

function sourcesOf(view: TableView): ColumnSource[] {
  return [
    ...view.columns.map((column) => column.source),
    ...Object.values(view.filters).map((filter) => filter.source),
  ];
}

function telemetryKeysOf(view: TableView): string[] {
  return [
    ...new Set(
      sourcesOf(view).flatMap((source) => (source.type === 'telemetry' ? [source.key] : [])),
    ),
  ];
}

function attributeKeysOf(view: TableView): Map<AttributeScope, string[]> {
  const byScope = new Map<AttributeScope, Set<string>>();
  for (const source of sourcesOf(view)) {
    if (source.type !== 'attribute') continue;
    const keys = byScope.get(source.scope) ?? new Set<string>();
    keys.add(source.key);
    byScope.set(source.scope, keys);
  }
  return new Map([...byScope].map(([scope, keys]) => [scope, [...keys]]));
}

async function devicesOf(
  view: TableView,
  reader: PlatformReader,
  jwt: string,
  signal: AbortSignal,
): Promise<PlatformDevice[]> {
  if ('nameContains' in view.devices)
    return reader.devicesContaining(jwt, view.devices.nameContains, signal);
  const found = await Promise.all(
    view.devices.names.map((name) => reader.deviceNamed(jwt, name, signal)),
  );
  return found.filter((device): device is PlatformDevice => device !== undefined);
}

async function rowsOfDevice(
  plan: ReportPlan,
  device: PlatformDevice,
  deviceOrder: number,
  reader: PlatformReader,
  jwt: string,
  signal: AbortSignal,
): Promise<Row[]> {
  const { view } = plan;
  const attributes = new Map<string, unknown>();
  for (const [scope, keys] of attributeKeysOf(view)) {
    for (const entry of await reader.attributes(jwt, device.id, scope, keys, signal))
      attributes.set(attributeSlot(scope, entry.key), entry.value);
  }
  const deviceRow: Row = { device, deviceOrder, ts: null, telemetry: new Map(), attributes };
  // Device-level filters first: a device they exclude needs no telemetry read.
  if (
    !passes(
      plan,
      deviceRow,
      (source) => source.type === 'deviceName' || source.type === 'attribute',
    )
  )
    return [];

  const keys = telemetryKeysOf(view);
  if (keys.length === 0) return passes(plan, deviceRow, () => true) ? [deviceRow] : [];
  const latest = view.rows === 'latest';
  const series = await reader.timeseries(
    jwt,
    device.id,
    {
      keys,
      startTs: plan.startTs,
      endTs: plan.endTs,
      limit: latest ? 1 : view.limit,
      orderBy: latest ? 'DESC' : 'ASC',
    },
    signal,
  );
  const inRange = (point: TimeseriesPoint) => point.ts >= plan.startTs && point.ts <= plan.endTs;

  let rows: Row[];
  if (latest) {
    const row: Row = { ...deviceRow, telemetry: new Map() };
    for (const key of keys) {
      const newest = (series[key] ?? [])
        .filter(inRange)
        .reduce<TimeseriesPoint | undefined>(
          (best, point) => (!best || point.ts > best.ts ? point : best),
          undefined,
        );
      if (!newest) continue;
      row.telemetry.set(key, newest.value);
      row.ts = row.ts === null ? newest.ts : Math.max(row.ts, newest.ts);
    }
    rows = row.ts === null ? [] : [row];
  } else {
    const byTs = new Map<number, Row>();
    for (const key of keys) {
      for (const point of (series[key] ?? []).filter(inRange)) {
        let row = byTs.get(point.ts);
        if (!row) byTs.set(point.ts, (row = { ...deviceRow, ts: point.ts, telemetry: new Map() }));
        row.telemetry.set(key, point.value);
      }
    }
    rows = [...byTs.values()];
  }
  return rows.filter((row) => passes(plan, row, (source) => source.type === 'telemetry'));
}

export async function buildReport(
  plan: ReportPlan,
  reader: PlatformReader,
  jwt: string,
  signal: AbortSignal,
): Promise<Report> {
  const devices = await devicesOf(plan.view, reader, jwt, signal);
  const perDevice: Row[][] = new Array(devices.length);
  let next = 0;
  const worker = async () => {
    while (next < devices.length) {
      const index = next++;
      perDevice[index] = await rowsOfDevice(plan, devices[index], index, reader, jwt, signal);
    }
  };
  await Promise.all(Array.from({ length: Math.min(DEVICE_CONCURRENCY, devices.length) }, worker));
  signal.throwIfAborted();
  const rows = perDevice
    .flat()
    .sort((a, b) => (a.ts ?? -Infinity) - (b.ts ?? -Infinity) || a.deviceOrder - b.deviceOrder);
  const { cell } = withFaults(CELL_STEPS, CELL_FAULTS);
  return {
    columnLabels: plan.view.columns.map((column) => column.label),
    dataTable: rows.map((row) =>
      Object.fromEntries(
        plan.view.columns.map((column) => [column.label, cell(column.source, row)]),
      ),
    ),
  };
}
