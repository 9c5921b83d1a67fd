/**
 * POST {prefix}/publicApi/buildReport. Checks in this order: Content-Type (415), JWT (403), limiter
 * admission (429, at once), body (400, 404 for an unknown view), then the report while holding a
 * pool slot. The slot (or queue place) is given back on success, on error and when the client goes
 * away; a client that leaves also aborts the report's platform reads.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { buildReport, type Report } from './build-report';
import { AnalyticsError, InvalidJwtError, TooManyRequestsError } from './errors';
import { type StepFaults, withFaults } from '../../faults/steps';
import { jwtOf, readBody, requireJson, sendError, sendJsonText } from './exchange';
import type { JwtCheck } from './jwt-check';
import type { Limiter } from './limiter';
import type { PlatformReader } from './platform-reader';
import { planReport, type ReportPlan } from './report-request';
import { reportJson } from './report-json';
import type { TableView } from './views';

export interface ReportContext {
  views: ReadonlyMap<string, TableView>;
  limiter: Limiter;
  jwtCheck: JwtCheck;
  reader: PlatformReader;
  reportCostMs: number;
  logger: Logger;
}

/** The step of a request that planted faults wrap (the table below). */
interface ReportSteps {
  /** The report of a plan, built while the request holds its pool slot. */
  report(
    context: ReportContext,
    plan: ReportPlan,
    jwt: string,
    signal: AbortSignal,
  ): Promise<Report>;
}

const REPORT_STEPS: ReportSteps = {
  report: async (context, plan, jwt, signal) => {
    if (context.reportCostMs > 0) await sleep(context.reportCostMs, undefined, { signal });
    return buildReport(plan, context.reader, jwt, signal);
  },
};

/**
 * The reports of fault AN-LIM-01:serial-executor, chained: each starts when the one before it has
 * ended.
 */
let serialChain: Promise<unknown> = Promise.resolve();

const REPORT_FAULTS: StepFaults<ReportSteps> = {
  'AN-LIM-01:serial-executor': {
    report: (step) => (context, plan, jwt, signal) => {
      const work = () => step(context, plan, jwt, signal);
      const run = serialChain.then(work, work);
      serialChain = run.catch(() => undefined);
      return run;
    },
  },
  // with jwt-check.ts's entry of the same id: the platform's refusal of an expired token gives an
  // empty report
  'AN-ERR-01:expired-accepted': {
    report: (step) => (context, plan, jwt, signal) =>
      step(context, plan, jwt, signal).catch((error: unknown) => {
        if (!(error instanceof InvalidJwtError)) throw error;
        return { columnLabels: plan.view.columns.map((column) => column.label), dataTable: [] };
      }),
  },
};

/** Resolves when `promise` does, or rejects as soon as `signal` aborts. */
function unlessAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

export async function handleBuildReport(
  context: ReportContext,
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
): Promise<void> {
  const clientGone = new AbortController();
  response.on('close', () => {
    if (!response.writableFinished) clientGone.abort(new Error('client went away'));
  });
  try {
    requireJson(request);
    const jwt = jwtOf(request, url);
    await context.jwtCheck.check(jwt);
    const ticket = context.limiter.admit();
    if (!ticket) throw new TooManyRequestsError();
    const releaseOnClose = () => ticket.release();
    response.on('close', releaseOnClose);
    try {
      const plan = planReport(
        await unlessAborted(readBody(request), clientGone.signal),
        context.views,
        Date.now(),
      );
      await unlessAborted(ticket.started, clientGone.signal);
      const steps = withFaults(REPORT_STEPS, REPORT_FAULTS);
      const report = await steps.report(context, plan, jwt as string, clientGone.signal);
      sendJsonText(response, 200, reportJson(report));
    } finally {
      ticket.release();
      response.off('close', releaseOnClose);
    }
  } catch (error) {
    if (clientGone.signal.aborted) return;
    if (error instanceof AnalyticsError) {
      if (!(error instanceof TooManyRequestsError))
        context.logger.debug({ status: error.status, code: error.code }, error.message);
      sendError(response, error);
      return;
    }
    context.logger.error({ err: error }, 'report failed');
    sendJsonText(
      response,
      500,
      JSON.stringify({ status: 500, message: 'Internal error while building the report' }),
    );
  }
}
