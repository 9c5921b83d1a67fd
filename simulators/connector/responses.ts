/**
 * Writing a connector answer (docs/reference/interfaces.md "Response of a connector endpoint"):
 * default variant, status only; hardcoded, successResponse on 200 and unsuccessfulResponse on any
 * other status; remote, the platform's value on 200 (a JSON document as JSON, anything else as
 * text) and unsuccessfulResponse, when configured, otherwise.
 */
import type { ServerResponse } from 'node:http';
import { textOf } from '../../lib/expressions';
import type { ResponseConfig } from './config-types';
import { withFaults } from '../../faults/steps';
import { ANSWER_FAULTS, ANSWER_STEPS } from './answer-steps';

export function answer(
  response: ServerResponse,
  status: number,
  config: ResponseConfig,
  extraHeaders: Record<string, string> = {},
): void {
  // answered from several handlers, so the faults are applied here, per answer (cheap: none are on
  // outside the matrix)
  const steps = withFaults(ANSWER_STEPS, ANSWER_FAULTS);
  let body = '';
  if (config.kind === 'hardcoded')
    body = steps.unsuccessful(status) ? config.unsuccessfulResponse : config.successResponse;
  else if (config.kind === 'default') body = steps.defaultBody(status);
  else if (config.kind === 'remote' && status !== 200) body = config.unsuccessfulResponse ?? '';
  send(response, status, body, body ? 'text/plain; charset=utf-8' : undefined, extraHeaders);
}

/** 200 with the value the platform produced (remote variant). */
export function answerRemote(response: ServerResponse, value: unknown): void {
  if (value !== null && typeof value === 'object')
    send(response, 200, JSON.stringify(value), 'application/json');
  else send(response, 200, textOf(value), 'text/plain; charset=utf-8');
}

/**
 * aiohttp's page for an uncaught error of a handler (ThingsBoard IoT Gateway 3.8.3's 500s, quirks
 * mode only).
 */
export const SERVER_ERROR_PAGE = '500 Internal Server Error\n\nServer got itself in trouble';

export function send(
  response: ServerResponse,
  status: number,
  body: string,
  contentType?: string,
  extraHeaders: Record<string, string> = {},
): void {
  if (response.headersSent) return;
  const headers: Record<string, string | number> = {
    ...extraHeaders,
    'content-length': Buffer.byteLength(body),
  };
  if (contentType) headers['content-type'] = contentType;
  response.writeHead(status, headers);
  response.end(body);
}
