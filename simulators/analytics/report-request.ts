/**
 * The report request of docs/reference/interfaces.md: viewConfigId (UUID, required), rangeStartTs and rangeEndTs (optional integers
 * of epoch ms; absent or null = the view's saved range), filters (optional object of filter name to array of strings;
 * absent or null = the view's saved filters). Unknown top-level members are ignored, as a Spring/Jackson endpoint
 * does by default.
 */
import { validate } from '../../schemas/validate';
import { BadReportRequestError, ViewNotFoundError } from './errors';
import { savedRangeBounds, type TableView } from './views';
import { faultActive } from '../../faults';

const reportRequestSchema = {
  $id: 'iotc:analytics/report-request',
  type: 'object',
  required: ['viewConfigId'],
  properties: {
    viewConfigId: { type: 'string', format: 'uuid' },
    rangeStartTs: { type: ['integer', 'null'] },
    rangeEndTs: { type: ['integer', 'null'] },
    filters: {
      type: ['object', 'null'],
      additionalProperties: { type: 'array', items: { type: 'string' } },
    },
  },
} as const;

interface ReportRequestBody {
  viewConfigId: string;
  rangeStartTs?: number | null;
  rangeEndTs?: number | null;
  filters?: Record<string, string[]> | null;
}

/** A request resolved against its view: the range and filter values the report uses. */
export interface ReportPlan {
  view: TableView;
  startTs: number;
  endTs: number;
  /** Filter name -> the values that pass (the request's where given, else the view's). */
  filters: Record<string, string[]>;
}

/** Parses the body text; throws BadReportRequestError (400) or ViewNotFoundError (404). */
export function planReport(
  bodyText: string,
  views: ReadonlyMap<string, TableView>,
  now: number,
): ReportPlan {
  let body: unknown;
  try {
    body = JSON.parse(bodyText);
  } catch (error) {
    throw new BadReportRequestError(`Malformed JSON: ${(error as Error).message}`);
  }
  const firstView = views.values().next().value;
  if (
    faultActive('AN-REQ-01:optional') &&
    firstView &&
    typeof body === 'object' &&
    body !== null &&
    !('viewConfigId' in body)
  )
    body = { ...body, viewConfigId: firstView.id };
  const validation = validate(reportRequestSchema, body);
  if (!validation.ok)
    throw new BadReportRequestError(`Invalid report request: ${validation.errors.join('; ')}`);
  const request = body as ReportRequestBody;
  const view =
    views.get(request.viewConfigId.toLowerCase()) ??
    (faultActive('AN-REQ-01:view-ignored') ? firstView : undefined);
  if (!view) throw new ViewNotFoundError(request.viewConfigId);

  const saved = faultActive('AN-REQ-02:saved-range-ignored')
    ? { startTs: 0, endTs: now }
    : savedRangeBounds(view.range, now);
  const halfIgnored =
    faultActive('AN-REQ-02:half-range-ignored') &&
    (request.rangeStartTs == null) !== (request.rangeEndTs == null);
  const startTs = halfIgnored
    ? saved.startTs
    : faultActive('AN-REQ-02:range-start-ignored')
      ? saved.startTs
      : (request.rangeStartTs ??
        (faultActive('AN-REQ-02:saved-start-ignored') ? 0 : saved.startTs));
  const endTs = halfIgnored
    ? saved.endTs
    : faultActive('AN-REQ-02:range-end-ignored')
      ? saved.endTs
      : (request.rangeEndTs ?? saved.endTs);
  if (startTs > endTs)
    throw new BadReportRequestError(`rangeStartTs (${startTs}) is after rangeEndTs (${endTs})`);

  const filters = Object.fromEntries(
    Object.entries(view.filters).map(([name, filter]) => [name, filter.values]),
  );
  for (const [name, values] of Object.entries(request.filters ?? {})) {
    if (!Object.hasOwn(view.filters, name)) {
      if (faultActive('AN-REQ-04:unknown-filter-ignored')) continue;
      const known = Object.keys(view.filters);
      throw new BadReportRequestError(
        `"${name}" is not a filter of view ${view.id}; its filters are: ${known.length ? known.join(', ') : '(none)'}`,
      );
    }
    if (faultActive('AN-REQ-03:filters-ignored')) continue;
    filters[name] = faultActive('AN-REQ-03:first-value-only') ? values.slice(0, 1) : values;
  }
  return { view, startTs, endTs, filters };
}
