/**
 * What the REST connector steps share: the connector client and the external-API control for the run, and the
 * connector's rest.json, read from the file the target names (steps learn endpoints, credentials and rules from
 * it, so a run against a real gateway needs only its URL and its file). Never imports the reference connector.
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

/** The security of the endpoint at `path` as rest.json configures it (defaults of docs/reference/interfaces.md applied). */
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

export async function closeConnectorSteps(): Promise<void> {
  const current = shared;
  shared = undefined;
  await current?.client.close();
}
