/**
 * What the REST connector steps share: the connector client and the external-API control for the
 * run, and the connector's rest.json, read from the file the target names (steps learn endpoints,
 * credentials and rules from it, so a run against a real gateway needs only its URL and its file).
 * Never imports the reference connector.
 */
import { readFileSync } from 'node:fs';
import { ConnectorClient } from '../../simulators/connector-client';
import { ExternalApiControl } from '../../simulators/external-api/control';
import type { ConnectorTarget } from '../../src/target';
import { run } from './run';
import { recordExchange } from './evidence';

export interface EndpointSecurity {
  type?: string;
  username?: string;
  password?: string;
}

export interface RestFile {
  server: { host?: string; port?: number; SSL?: boolean; security?: { cert: string; key: string } };
  mapping: Array<{
    endpoint?: string;
    HTTPMethods?: string[];
    security?: EndpointSecurity;
    response?: Record<string, unknown>;
  }>;
  requestsMapping?: {
    attributeRequests?: Array<{ endpoint?: string; security?: EndpointSecurity }>;
  };
}

let shared:
  | { runId: string; client: ConnectorClient; external?: ExternalApiControl; file: RestFile }
  | undefined;

export function connectorTarget(): ConnectorTarget {
  const connector = run().target.connector;
  if (!connector) throw new Error('the target profile has no connector section (url, configFile)');
  return connector;
}

function state() {
  const { runId } = run();
  if (shared?.runId !== runId) {
    const connector = connectorTarget();
    shared = {
      runId,
      // shared by the run's scenarios: its exchanges go to the evidence of the scenario running
      client: new ConnectorClient(connector.url, {
        ca: connector.tls.ca,
        insecureSkipVerify: connector.tls.insecureSkipVerify,
        recorder: recordExchange,
      }),
      external: connector.externalApiUrl
        ? new ExternalApiControl(connector.externalApiUrl)
        : undefined,
      file: JSON.parse(readFileSync(connector.configFile, 'utf8')) as RestFile,
    };
  }
  return shared;
}

export function connectorClient(): ConnectorClient {
  return state().client;
}

export function restFile(): RestFile {
  return state().file;
}

export function externalApi(): ExternalApiControl {
  const external = state().external;
  if (!external) throw new Error('the target profile names no externalApiUrl for the connector');
  return external;
}

/**
 * The security of the endpoint at `path` as rest.json configures it (defaults of
 * docs/reference/interfaces.md applied).
 */
export function endpointSecurity(path: string): EndpointSecurity {
  const file = restFile();
  const mapping = file.mapping.find((item) => (item.endpoint ?? '/test_device') === path);
  const request = file.requestsMapping?.attributeRequests?.find(
    (item) => (item.endpoint ?? '/sharedAttributes') === path,
  );
  const found = mapping ?? request;
  if (!found) return { type: 'anonymous' }; // a path the connector does not serve: nothing to authenticate

  const security = found.security ?? {};
  return {
    type: security.type ?? 'basic',
    username: security.username ?? '<USERNAME>',
    password: security.password ?? '<PASSWORD>',
  };
}

/**
 * The response.timeout of the endpoint at `path` (rest.json), in ms: how long the connector holds a
 * request for the platform's answer (120 s when the section names none); undefined when the
 * endpoint has no remote-answer members.
 */
export function endpointResponseTimeoutMs(path: string): number | undefined {
  const mapping = restFile().mapping.find((item) => (item.endpoint ?? '/test_device') === path);
  const section = mapping?.response as
    | { responseExpected?: boolean; timeout?: number; responseAttribute?: string }
    | undefined;
  if (!section) return undefined;
  const remote =
    section.responseExpected !== undefined ||
    section.timeout !== undefined ||
    section.responseAttribute !== undefined;
  return remote ? (section.timeout ?? 120) * 1000 : undefined;
}

export async function closeConnectorSteps(): Promise<void> {
  const current = shared;
  shared = undefined;
  await current?.client.close();
}

interface OutgoingRule {
  requestUrlExpression?: string;
  timeout?: number;
  responseTimeout?: number;
}

/**
 * The path part of a requestUrlExpression as a pattern: scheme, host and query dropped, every
 * ${...} one segment.
 */
function pathPattern(expression: string): RegExp {
  const path = expression.replace(/^([a-z]+:\/\/)?[^/]*/i, '').split('?')[0]!;
  const parts = path
    .split(/\$\{[^}]*\}/)
    .map((part) => part.replace(/[.*+?^$()|[\]\\{}]/g, '\\$&'));
  return new RegExp(`^${parts.join('[^/]*')}/?$`);
}

/**
 * How long the connector gives one attempt of the outgoing call (attributeUpdates or serverSideRpc
 * rule) whose URL has this path, per its rest.json: its `timeout` (default 0.5 s), cut by an RPC's
 * `responseTimeout` (default 1 s) when shorter; undefined when no rule's requestUrlExpression
 * matches the path. The first matching rule counts.
 */
export function outgoingAttemptMs(path: string): number | undefined {
  const mapping = (
    restFile() as unknown as {
      requestsMapping?: { attributeUpdates?: OutgoingRule[]; serverSideRpc?: OutgoingRule[] };
    }
  ).requestsMapping;
  const rules = [
    ...(mapping?.attributeUpdates ?? []).map((rule) => ({ rule, rpc: false })),
    ...(mapping?.serverSideRpc ?? []).map((rule) => ({ rule, rpc: true })),
  ];
  const found = rules.find(
    ({ rule }) => rule.requestUrlExpression && pathPattern(rule.requestUrlExpression).test(path),
  );
  if (!found) return undefined;
  const timeoutSec = found.rule.timeout ?? 0.5;
  const deadlineSec = found.rpc ? (found.rule.responseTimeout ?? 1) : Infinity;
  return Math.min(timeoutSec, deadlineSec) * 1000;
}
