/**
 * Admin routes are data (method, path, who may call, a summary, the handler) so that one table
 * drives both the router and the OpenAPI description of the interactive documentation (openapi.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type Router from 'find-my-way';
import { LoginRedirect, PlatformError, PermissionDeniedError } from '../core/errors';
import type { Device, User } from '../core/model';
import type { PlatformCore } from '../core/platform-core';
import {
  errorBody,
  queryOf,
  readBody,
  sendEmpty,
  sendError,
  sendJson,
  sendJsonText,
  sendText,
} from '../http/exchange';
import { type StepFaults, withFaults } from '../../../faults/steps';
import { runPayloadJobSoon } from '../core/off-thread';
import { BodyAdmission } from './body-admission';
import { PayloadTooLargeError } from '../http/exchange';
import type { AdminAuth } from './auth';
import { accessOf } from './access';
import { checkDevice, type DeviceOperation } from './permissions';

export interface AdminContext {
  core: PlatformCore;
  auth: AdminAuth;
  request: IncomingMessage;
  params: Record<string, string>;
  query: URLSearchParams;
  /** The authenticated caller (absent only on public routes). */
  user: User;
  bodyText(): Promise<string>;
  bodyJson(): Promise<unknown>;
  /**
   * The largest body the admin API takes (ThingsBoard's max_payload_size for /api/**); 413 beyond.
   */
  maxBodyBytes: number;
  /**
   * The device with this id, if the caller may do `operation` on it (permissions.ts); else 404 or
   * 403.
   */
  device(id: string, operation: DeviceOperation): Device;
}

/**
 * What a handler answers: JSON (a value, or text already serialized), plain text, or an empty 200.
 */
export type AdminAnswer = {
  status?: number;
  json?: unknown;
  jsonText?: string;
  text?: string;
} | void;

export interface AdminRoute<Steps extends object = object> {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  summary: string;
  /** JSON Schema of the request body, where there is one (for the OpenAPI description). */
  requestSchema?: object;
  /**
   * The handler's named steps, where a planted fault wraps one (faults/steps.ts); the handler gets
   * them.
   */
  steps?: Steps;
  /**
   * The planted faults of this route, by id: the steps each wraps (applied per request,
   * faults/steps.ts).
   */
  faults?: StepFaults<Steps>;
  handler(context: AdminContext, steps: Steps): Promise<AdminAnswer> | AdminAnswer;
}

/**
 * A route with named steps and their faults, the step names inferred (the table holds it as an
 * AdminRoute).
 */
export function routeWithSteps<Steps extends object>(route: AdminRoute<Steps>): AdminRoute {
  return route as unknown as AdminRoute;
}

/** ThingsBoard's HTTP_MAX_PAYLOAD_SIZE_LIMIT_CONFIGURATION for /api/**: 16 MiB. */
const MAX_ADMIN_BODY = 16 * 1024 * 1024;

export function registerAdminRoutes(
  router: Router.Instance<Router.HTTPVersion.V1>,
  core: PlatformCore,
  auth: AdminAuth,
  routes: AdminRoute[],
  maxBodyBytes = MAX_ADMIN_BODY,
  admission = new BodyAdmission(),
): void {
  for (const route of routes) {
    accessOf(route); // a route without an access row fails here, at start, not at its first call
    router.on(route.method, route.path, (request, response, params) => {
      const routeParams = params as Record<string, string>;
      handle(route, core, auth, request, response, routeParams, maxBodyBytes, admission).catch(
        (error: unknown) => answerError(request, response, error),
      );
    });
  }
}

async function handle(
  route: AdminRoute,
  core: PlatformCore,
  auth: AdminAuth,
  request: IncomingMessage,
  response: ServerResponse,
  params: Record<string, string>,
  maxBodyBytes: number,
  admission: BodyAdmission,
): Promise<void> {
  let body: Promise<string> | undefined;
  const bodyText = () =>
    (body ??= readBody(request, maxBodyBytes).then((buffer) => buffer.toString('utf8')));
  const access = accessOf(route);
  const user =
    access === 'public' ? (undefined as unknown as User) : await auth.authenticate(request);
  if (access !== 'public' && !access.includes(user.authority)) throw new PermissionDeniedError();
  const steps = route.steps ? withFaults(route.steps, route.faults ?? {}) : {};
  const release = await admitBody(request, maxBodyBytes, admission);
  try {
    const answer = await route.handler(
      {
        core,
        auth,
        request,
        params,
        query: queryOf(request.url),
        user,
        bodyText,
        // parsed as a device's body is: a large one on the payload worker (core/off-thread.ts), its
        // depth checked there
        bodyJson: async () =>
          runPayloadJobSoon({ kind: 'json', text: await bodyText(), what: 'request body' }),
        maxBodyBytes,
        device: (id, operation) => checkDevice(user, core.device(id), operation),
      },
      steps,
    );
    if (!body) request.resume();
    const status = answer?.status ?? 200;
    if (answer?.jsonText !== undefined) sendJsonText(response, status, answer.jsonText);
    else if (answer?.json !== undefined) sendJson(response, status, answer.json);
    else if (answer?.text !== undefined) sendText(response, status, answer.text);
    else sendEmpty(response, status);
  } finally {
    release();
  }
}

/**
 * The body-reading entry point's admission (body-admission.ts): a request that carries a body (a
 * Content-Length above 0, or chunked) is admitted for its declared length, or for the whole limit
 * when chunked, before its handler can read a byte; a declared length over the limit is 413 at
 * once, as ThingsBoard's PayloadSizeFilter refuses it
 * (common/transport/http/.../PayloadSizeFilter.java checkMaxPayloadSizeExceeded). The release is
 * called once the answer is sent (or the handler failed).
 */
async function admitBody(
  request: IncomingMessage,
  maxBodyBytes: number,
  admission: BodyAdmission,
): Promise<() => void> {
  const declared = request.headers['content-length'];
  const chunked = declared === undefined && request.headers['transfer-encoding'] !== undefined;
  const bytes = chunked ? maxBodyBytes : Number(declared ?? 0);
  if (!(bytes > 0)) return () => undefined;
  if (bytes > maxBodyBytes) throw new PayloadTooLargeError(maxBodyBytes);
  return admission.admit(bytes);
}

/** The admin API's steps shared by every route (ADMIN_API_FAULTS below wraps them). */
export const ADMIN_API_STEPS = {
  /** The body of an error answer: ThingsBoard's {status, message, errorCode, timestamp}. */
  errorBody: errorBody,
};
export type AdminApiSteps = typeof ADMIN_API_STEPS;

/**
 * The planted faults of the shared steps (faults/catalogue/admin-auth.ts says what each breaks).
 */
const ADMIN_API_FAULTS: StepFaults<AdminApiSteps> = {
  'AUTH-01:error-body-code-only': { errorBody: () => (error) => ({ errorCode: error.errorCode }) },
};

function answerError(request: IncomingMessage, response: ServerResponse, error: unknown): void {
  const steps = withFaults(ADMIN_API_STEPS, ADMIN_API_FAULTS);
  request.resume(); // an unread body must not hold the connection
  if (error instanceof LoginRedirect && !response.headersSent) {
    response.writeHead(302, { location: error.location, 'content-length': 0 }).end();
    return;
  }
  if (error instanceof PlatformError) return sendError(response, error, steps.errorBody);
  sendError(
    response,
    new PlatformError((error as Error)?.message ?? 'Internal error', 500, 2),
    steps.errorBody,
  );
}
