/**
 * Starting the reference platform on a free port and talking to it over real sockets, for the
 * platform's tests.
 */
import { request } from 'undici';
import {
  startPlatform,
  type PlatformOptions,
  type RunningPlatform,
} from '../../simulators/platform';

export interface Answer {
  status: number;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: test answers are inspected field by field
  json: any;
}

export async function start(options: PlatformOptions = {}): Promise<RunningPlatform> {
  return startPlatform({ httpPort: 0, ...options });
}

export async function call(
  base: string,
  method: string,
  path: string,
  options: { body?: unknown; raw?: string; jwt?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.jwt) headers['x-authorization'] = `Bearer ${options.jwt}`;
  let body: string | undefined = options.raw;
  if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  const response = await request(base + path, { method: method as 'GET', headers, body });
  const text = await response.body.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.statusCode, text, json };
}

export async function login(
  base: string,
  username = 'tenant@thingsboard.org',
  password = 'tenant',
): Promise<string> {
  const answer = await call(base, 'POST', '/api/auth/login', { body: { username, password } });
  if (answer.status !== 200) throw new Error(`login failed: ${answer.status}`);
  return answer.json.token as string;
}

export async function newDevice(
  base: string,
  jwt: string,
  name: string,
): Promise<{ id: string; token: string }> {
  const created = await call(base, 'POST', '/api/device', { body: { name }, jwt });
  const credentials = await call(base, 'GET', `/api/device/${created.json.id.id}/credentials`, {
    jwt,
  });
  return { id: created.json.id.id, token: credentials.json.credentialsId };
}
