/**
 * A REST connector under test, as a run reaches it (its own module: index.ts and
 * embedded-connector.ts share it).
 */
export interface ConnectorTarget {
  /** Base URL of the connector endpoints. */
  url: string;
  /** The rest.json the connector runs with. */
  configFile: string;
  /** Control URL of the external-API simulator that its outgoing calls reach. */
  externalApiUrl?: string;
  /**
   * Ports of the connector's own network published on the harness's host (like docker -p
   * HOST:PORT): the port the connector listens on (rest.json server.port, default 5000) to the host
   * port the harness reaches it at.
   */
  publishedPorts?: Record<string, number>;
  /**
   * Destinations (`host:port`) of the connector's outgoing calls that its network delivers to the
   * external API (like /etc/hosts and port forwarding), the request's URL and Host kept: what the
   * rest.json defaults call.
   */
  routedDestinations?: string[];
  /**
   * A second connector of the same gateway running the conformance file without the optional
   * sections (src/target/embedded-rest-sparse.json): its base URL (http) and that file.
   */
  sparse?: { url: string; configFile: string };
  /** Trust for an https connector: the CA (PEM), or no verification. */
  tls: { ca?: string; insecureSkipVerify: boolean };
}
