/**
 * The reference REST connector: loads rest.json, serves every mapping[] and attributeRequests[]
 * endpoint over HTTP (HTTPS when server.SSL), converts requests and forwards them to the platform
 * over the MQTT gateway API with its own gateway token (the gateway driver), and turns the
 * platform's shared-attribute updates and server-side RPCs of its devices into outgoing HTTP calls
 * (attributeUpdates, serverSideRpc). Started in-process by the embedded target and standalone by
 * `iotc simulate`.
 */
import { faultActive } from '../../faults';
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import pino, { type Logger } from 'pino';
import { MqttGateway, NO_REPLY } from '../gateway/mqtt-gateway';
import { generateSelfSignedCertificate } from '../../lib/tls/certificate';
import { loadConnectorConfig } from './config';
import type { ConnectorConfig } from './config-types';
import { JSON_CONVERTER_STEPS, JsonConverter } from './json-converter';
import { withFaults } from '../../faults/steps';
import {
  ATTRIBUTE_REQUEST_FAULTS,
  ATTRIBUTE_UPDATE_FAULTS,
  CUSTOM_CONVERTER_FAULTS,
  ROUTE_FAULTS,
  AUTHORIZATION_FAULTS,
  JSON_CONVERTER_FAULTS,
  MAPPING_ENDPOINT_FAULTS,
  SERVER_SIDE_RPC_FAULTS,
} from './step-faults';
import { AUTHORIZATION_STEPS } from './basic-auth';
import { CUSTOM_CONVERTER_STEPS, loadCustomConverter } from './custom-converter';
import { PlatformLink } from './platform-link';
import { RemoteResponses } from './remote-responses';
import { MAPPING_ENDPOINT_STEPS, mappingHandler } from './mapping-endpoint';
import { ATTRIBUTE_REQUEST_STEPS, attributeRequestHandler } from './attribute-request-endpoint';
import { listen, ROUTE_STEPS, Routes } from './http-server';
import { answer } from './responses';
import { OutgoingDispatchers, type NetworkRoutes } from './outgoing-call';
import { ATTRIBUTE_UPDATE_STEPS, sendAttributeUpdate } from './attribute-updates';
import { handleServerSideRpc, NOT_HANDLED, SERVER_SIDE_RPC_STEPS } from './server-side-rpc';
import { connectorQuirks, type ConnectorQuirksMode } from './quirks';

export { completeConfig, ConnectorConfigError } from './config';
import { DEFAULT_EXTENSIONS_FOLDER } from './checks';
export type { ConnectorConfig } from './config-types';
export { CONNECTOR_QUIRKS_MODES, type ConnectorQuirksMode } from './quirks';

interface ConnectorOptions {
  /** A parsed, completed configuration, or the path of a rest.json. */
  config: ConnectorConfig | string;
  /**
   * The platform's MQTT URL and the connector's gateway device token (sent as the MQTT user name).
   */
  mqttUrl: string;
  gatewayToken: string;
  /** Overrides of server.host / server.port (0 = a free port), for embedded runs. */
  host?: string;
  port?: number;
  /**
   * The connector runs in a network of its own whose ports are published on the host at OS-chosen
   * ports (like `docker run -p 0:PORT`): the port it resolves (server.port, default 5000) is bound
   * nowhere on the host; its endpoints are served at a free host port instead, and `publishedPorts`
   * says which. No fixed host port is bound.
   */
  publishPorts?: boolean;
  /**
   * Where its outgoing calls' destinations really are (`host:port` to `host:port`), as /etc/hosts
   * and forwarding.
   */
  routes?: NetworkRoutes;
  /** Folder of custom converters; default DEFAULT_EXTENSIONS_FOLDER. */
  extensionsFolder?: string;
  /** Trust for an mqtts URL. */
  mqttTls?: { ca?: string; insecureSkipVerify?: boolean };
  /**
   * Reproduce a real gateway version's known differences (quirks.ts) when config is a path (a
   * completed config carries its own).
   */
  quirks?: ConnectorQuirksMode;
  logger?: Logger;
}

export interface RunningConnector {
  /** http(s)://host:port of the endpoints (the published address when the ports are published). */
  url: string;
  /**
   * With publishPorts: the port the connector resolved (its network's) to the host port it is
   * published at.
   */
  publishedPorts?: Record<string, number>;
  /**
   * The certificate the server presents when SSL is on (self-signed or from server.security.cert).
   */
  certificate?: string;
  config: ConnectorConfig;
  close(): Promise<void>;
}

export async function startConnector(options: ConnectorOptions): Promise<RunningConnector> {
  const config =
    typeof options.config === 'string'
      ? loadConnectorConfig(options.config, connectorQuirks(options.quirks))
      : options.config;
  const logger =
    options.logger ??
    pino({ name: 'rest-connector', level: process.env.IOTC_CONNECTOR_LOG ?? 'silent' });
  const host = options.host ?? config.server.host;
  const tls = config.server.ssl ? await tlsMaterial(config, host) : undefined;
  const remote = new RemoteResponses();
  // each handler's steps with the active faults wrapped in (steps.ts, step-faults.ts)
  const rpcSteps = withFaults(SERVER_SIDE_RPC_STEPS, SERVER_SIDE_RPC_FAULTS);
  const authorization = withFaults(AUTHORIZATION_STEPS, AUTHORIZATION_FAULTS);
  const mappingSteps = withFaults(MAPPING_ENDPOINT_STEPS, MAPPING_ENDPOINT_FAULTS);
  const attributeRequestSteps = withFaults(ATTRIBUTE_REQUEST_STEPS, ATTRIBUTE_REQUEST_FAULTS);
  const updateSteps = withFaults(ATTRIBUTE_UPDATE_STEPS, ATTRIBUTE_UPDATE_FAULTS);
  const dispatchers = new OutgoingDispatchers(options.routes);
  const inFlight = new Set<Promise<unknown>>();
  const track = (work: Promise<unknown>) => {
    inFlight.add(work);
    void work.catch(() => undefined).finally(() => inFlight.delete(work));
  };
  // the downlink handlers of a gateway session; attached again to every new session after a
  // reconnect
  let link: PlatformLink | undefined;
  const attach = (gateway: MqttGateway) => {
    gateway.onAttributeUpdate((received) => {
      // an attribute that answers a waiting request is that request's, not an update to send on
      const update = remote.deliver(received);
      if (
        Object.keys(update.data).length &&
        config.attributeUpdates.length &&
        link?.isConnected(update.device)
      ) {
        track(
          sendAttributeUpdate(update, config.attributeUpdates, dispatchers, logger, updateSteps),
        );
      }
    });
    gateway.handleRpc(async (request) => {
      if (!link?.isConnected(request.device)) return NO_REPLY;
      const reply = await handleServerSideRpc(
        request,
        config.serverSideRpc,
        dispatchers,
        logger,
        config.quirks,
        rpcSteps,
      );
      return reply === NOT_HANDLED ? NO_REPLY : reply;
    });
  };
  link = await PlatformLink.start(
    () =>
      MqttGateway.connect({
        url: options.mqttUrl,
        token: options.gatewayToken,
        protocolVersion: 5,
        tls: options.mqttTls,
      }),
    attach,
    logger,
  );
  const routes = new Routes(withFaults(ROUTE_STEPS, ROUTE_FAULTS));
  try {
    for (const endpoint of config.mapping) {
      const converter =
        endpoint.converter.type === 'custom'
          ? loadCustomConverter(
              endpoint.converter,
              options.extensionsFolder ?? DEFAULT_EXTENSIONS_FOLDER,
              logger,
              withFaults(CUSTOM_CONVERTER_STEPS, CUSTOM_CONVERTER_FAULTS),
            )
          : new JsonConverter(
              endpoint.converter,
              config.quirks,
              withFaults(JSON_CONVERTER_STEPS, JSON_CONVERTER_FAULTS),
            );
      routes.add(
        endpoint.endpoint,
        endpoint.methods,
        mappingHandler(endpoint, converter, {
          link,
          remote,
          logger,
          quirks: config.quirks,
          steps: mappingSteps,
          authorization,
        }),
        config.quirks.errorPagesOfTheServer
          ? undefined
          : (reply, headers) => answer(reply, 405, endpoint.response, headers),
      );
    }
    for (const attributeRequest of config.attributeRequests) {
      routes.add(
        attributeRequest.endpoint,
        attributeRequest.methods,
        attributeRequestHandler(
          attributeRequest,
          link,
          logger,
          config.quirks,
          attributeRequestSteps,
          authorization,
        ),
      );
    }
  } catch (error) {
    await link.close();
    throw error;
  }
  let server: Server;
  let port: number;
  // the port the connector listens on in its own network: 0 (an ephemeral one) where the fault
  // ignores rest.json
  const resolvedPort = faultActive('RC-SRV-02:port-ignored')
    ? 0
    : (options.port ?? config.server.port);
  try {
    ({ server, port } = await listen(
      routes,
      { host, port: options.publishPorts ? 0 : resolvedPort, tls },
      logger,
    ));
  } catch (error) {
    await link.close();
    throw error;
  }
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `${tls ? 'https' : 'http'}://${shownHost}:${port}`,
    // an ephemeral port is published nowhere (as in a container: only the ports named to docker -p
    // are)
    publishedPorts: options.publishPorts && resolvedPort ? { [resolvedPort]: port } : undefined,
    certificate: tls?.cert,
    config,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await Promise.allSettled(inFlight);
      await link.close();
      await dispatchers.close();
    },
  };
}

async function tlsMaterial(
  config: ConnectorConfig,
  host: string,
): Promise<{ cert: string; key: string }> {
  const security = config.server.security;
  if (security)
    return { cert: readFileSync(security.cert, 'utf8'), key: readFileSync(security.key, 'utf8') };
  return generateSelfSignedCertificate([...new Set([host, 'localhost', '127.0.0.1'])]);
}
