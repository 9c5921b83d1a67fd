/**
 * The report request of docs/reference/interfaces.md: viewConfigId (UUID, required), rangeStartTs
 * and rangeEndTs (optional integers of epoch ms; absent or null = the view's saved range), filters
 * (optional object of filter name to array of strings; absent or null = the view's saved filters).
 * Unknown top-level members are ignored, as a Spring/Jackson endpoint does by default.
 */
import { validate } from '../../schemas/validate';
import { BadReportRequestError, ViewNotFoundError } from './errors';
import { savedRangeBounds, type TableView } from './views';
import { type StepFaults, withFaults } from '../../faults/steps';

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

/** The steps of resolving a request against the views (the faults below wrap them). */
interface PlanSteps {
  /** The parsed body as a valid request; throws BadReportRequestError. */
  request(body: unknown, views: ReadonlyMap<string, TableView>): ReportRequestBody;
  /** The view the request names, or undefined. */
  view(request: ReportRequestBody, views: ReadonlyMap<string, TableView>): TableView | undefined;
  /** The bounds of the view's saved range at `now`. */
  savedRange(view: TableView, now: number): { startTs: number; endTs: number };
  /** The report's range: the request's bounds where given, else the saved ones. */
  range(
    request: ReportRequestBody,
    saved: { startTs: number; endTs: number },
  ): { startTs: number; endTs: number };
  /**
   * The values a filter of the request lets pass (undefined: the view's); throws for a filter the
   * view lacks.
   */
  filter(view: TableView, name: string, values: string[]): string[] | undefined;
}

const PLAN_STEPS: PlanSteps = {
  request: (body) => {
    const validation = validate(reportRequestSchema, body);
    if (!validation.ok)
      throw new BadReportRequestError(`Invalid report request: ${validation.errors.join('; ')}`);
    return body as ReportRequestBody;
  },
  view: (request, views) => views.get(request.viewConfigId.toLowerCase()),
  savedRange: (view, now) => savedRangeBounds(view.range, now),
  range: (request, saved) => ({
    startTs: request.rangeStartTs ?? saved.startTs,
    endTs: request.rangeEndTs ?? saved.endTs,
  }),
  filter: (view, name, values) => {
    if (Object.hasOwn(view.filters, name)) return values;
    const known = Object.keys(view.filters);
    throw new BadReportRequestError(
      `"${name}" is not a filter of view ${view.id}; its filters are: ${known.length ? known.join(', ') : '(none)'}`,
    );
  },
};

const firstView = (views: ReadonlyMap<string, TableView>) => views.values().next().value;

const PLAN_FAULTS: StepFaults<PlanSteps> = {
  'AN-REQ-01:optional': {
    request: (step) => (body, views) => {
      const first = firstView(views);
      const named = typeof body !== 'object' || body === null || 'viewConfigId' in body;
      return step(named || !first ? body : { ...body, viewConfigId: first.id }, views);
    },
  },
  'AN-REQ-01:view-ignored': {
    view: (step) => (request, views) => step(request, views) ?? firstView(views),
  },
  'AN-REQ-02:saved-range-ignored': {
    savedRange: () => (_view, now) => ({ startTs: 0, endTs: now }),
  },
  'AN-REQ-02:half-range-ignored': {
    range: (step) => (request, saved) =>
      (request.rangeStartTs == null) !== (request.rangeEndTs == null)
        ? saved
        : step(request, saved),
  },
  'AN-REQ-02:range-start-ignored': {
    range: (step) => (request, saved) => step({ ...request, rangeStartTs: null }, saved),
  },
  'AN-REQ-02:range-end-ignored': {
    range: (step) => (request, saved) => step({ ...request, rangeEndTs: null }, saved),
  },
  'AN-REQ-02:saved-start-ignored': {
    range: (step) => (request, saved) => step(request, { ...saved, startTs: 0 }),
  },
  'AN-REQ-04:unknown-filter-ignored': {
    filter: (step) => (view, name, values) =>
      Object.hasOwn(view.filters, name) ? step(view, name, values) : undefined,
  },
  'AN-REQ-03:filters-ignored': {
    filter: (step) => (view, name, values) => {
      step(view, name, values);
      return undefined;
    },
  },
  'AN-REQ-03:first-value-only': {
    filter: (step) => (view, name, values) => step(view, name, values)?.slice(0, 1),
  },
};

/** Parses the body text; throws BadReportRequestError (400) or ViewNotFoundError (404). */
export function planReport(
  bodyText: string,
  views: ReadonlyMap<string, TableView>,
  now: number,
): ReportPlan {
  const steps = withFaults(PLAN_STEPS, PLAN_FAULTS);
  let body: unknown;
  try {
    body = JSON.parse(bodyText);
  } catch (error) {
    throw new BadReportRequestError(`Malformed JSON: ${(error as Error).message}`);
  }
  const request = steps.request(body, views);
  const view = steps.view(request, views);
  if (!view) throw new ViewNotFoundError(request.viewConfigId);

  const { startTs, endTs } = steps.range(request, steps.savedRange(view, now));
  if (startTs > endTs)
    throw new BadReportRequestError(`rangeStartTs (${startTs}) is after rangeEndTs (${endTs})`);

  const filters = Object.fromEntries(
    Object.entries(view.filters).map(([name, filter]) => [name, filter.values]),
  );
  for (const [name, values] of Object.entries(request.filters ?? {})) {
    const chosen = steps.filter(view, name, values);
    if (chosen) filters[name] = chosen;
  }
  return { view, startTs, endTs, filters };
}
