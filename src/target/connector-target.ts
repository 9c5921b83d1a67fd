/** A REST connector under test, as a run reaches it (its own module: index.ts and embedded-connector.ts share it). */
export interface ConnectorTarget {
  /** Base URL of the connector endpoints. */
  url: string;
  /** The rest.json the connector runs with. */
  configFile: string;
  /** Control URL of the external-API simulator that its outgoing calls reach. */
  externalApiUrl?: string;
  /** Trust for an https connector: the CA (PEM), or no verification. */
  tls: { ca?: string; insecureSkipVerify: boolean };
}
