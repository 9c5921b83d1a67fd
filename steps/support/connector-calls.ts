/**
 * What the REST connector step files share (steps/rest-connector-*.steps.ts): run-unique device
 * names and their journal, the client's credentials, sending a request and checking its answer, and
 * JSON containment.
 */
import assert from 'node:assert/strict';
import type { ConnectorCall, ConnectorResponse } from '../../simulators/connector-client';
import type { IotcWorld } from '../world';
import { connectorClient, connectorTarget, endpointSecurity } from './connector';

/**
 * By scenario: the local clock (Date.now()) around the platform's last setting of a device's shared
 * attributes, the answer a held request waits for (responses.feature): a request answered by its
 * timeout instead weighs the time the scenario took to set it, and the stall, against its
 * response.timeout.
 */
export const attributesSetWindows = new WeakMap<IotcWorld, { start: number; end: number }>();

export const QUIET_MS = 150; // how long "no request" and "exactly n requests" watch for late calls

/**
 * Replaces <<local>> (and <<profile:local>>) by run-unique names; every device name is journaled
 * for cleanup.
 */
export function names(world: IotcWorld, text: string): string {
  return text.replace(
    /<<(profile:)?([\w.-]+)>>/g,
    (_match, profile: string | undefined, local: string) => {
      const name = world.unique(local);
      if (!profile) world.expectCreated('device', name); // the connector creates it
      return name;
    },
  );
}

export function credentials(
  world: IotcWorld,
  path: string,
): Pick<ConnectorCall, 'basic' | 'authorization'> {
  const given = world.connectorCredentials;
  if (given?.kind === 'none') return {};
  if (given?.kind === 'authorization') return { authorization: given.header };
  const security = endpointSecurity(path.split('?')[0]!);
  if (security.type !== 'basic') return {};
  return {
    basic: {
      username: security.username!,
      password: given?.kind === 'password' ? given.password : security.password!,
    },
  };
}

export async function send(world: IotcWorld, call: ConnectorCall): Promise<ConnectorResponse> {
  const path = names(world, call.path);
  const started = Date.now();
  const response = await connectorClient().send({
    ...call,
    path,
    ...credentials(world, path),
    timeoutMs: world.run.target.timeouts.requestMs,
  });
  world.connectorWindow = { start: started, end: Date.now() };
  return response;
}

export function lastAnswer(world: IotcWorld): ConnectorResponse {
  if (!world.connectorResponse)
    throw new Error('no connector request was sent in this scenario yet');
  return world.connectorResponse;
}

/** The last answer, after checking its status. */
export function answeredWith(world: IotcWorld, status: number): ConnectorResponse {
  const answer = lastAnswer(world);
  assert.equal(
    answer.status,
    status,
    `the connector answered ${answer.status} ${answer.text.slice(0, 200)}`,
  );
  return answer;
}

export function remember(world: IotcWorld, response: ConnectorResponse): void {
  world.connectorResponse = response;
}

/** Every member of `expected` is in `actual` with the same value (recursively). */
export function assertHolds(actual: unknown, expected: unknown, at = '$'): void {
  if (expected !== null && typeof expected === 'object' && !Array.isArray(expected)) {
    assert.ok(
      actual !== null && typeof actual === 'object',
      `${at}: expected an object, got ${JSON.stringify(actual)}`,
    );
    for (const [key, value] of Object.entries(expected))
      assertHolds((actual as Record<string, unknown>)[key], value, `${at}.${key}`);
  } else {
    assert.deepEqual(
      actual,
      expected,
      `${at}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`,
    );
  }
}

/** `${external}` in a step's text is the external-API simulator's URL. */
export function externalUrls(text: string): string {
  return text.replaceAll('${external}', connectorTarget().externalApiUrl ?? '');
}
