/**
 * The completed REST connector configuration (rest.json with the defaults of
 * docs/reference/interfaces.md applied, config.ts).
 */
import type { ConnectorQuirks } from './quirks';

export type Security =
  | { type: 'anonymous' }
  | { type: 'basic'; username: string; password: string };

export type EntryType = 'string' | 'double' | 'integer' | 'boolean' | 'json';

export interface Entry {
  key: string;
  type: EntryType;
  value: string | number | boolean;
}

export interface TimeseriesEntry extends Entry {
  tsField?: string;
  dayfirst: boolean;
  yearfirst: boolean;
}

export interface DeviceInfo {
  deviceNameExpression: string;
  deviceNameExpressionSource: 'request' | 'constant';
  deviceProfileExpression: string;
  deviceProfileExpressionSource: 'request' | 'constant';
}

export type ConverterConfig =
  | { type: 'json'; deviceInfo: DeviceInfo; attributes: Entry[]; timeseries: TimeseriesEntry[] }
  | { type: 'custom'; deviceInfo: DeviceInfo; extension: string; section: Record<string, unknown> };

export type ResponseConfig =
  | { kind: 'default' }
  | { kind: 'hardcoded'; successResponse: string; unsuccessfulResponse: string }
  /**
   * The answer is the shared attribute responseAttribute of the device, set by the platform within
   * timeoutSec.
   */
  | {
      kind: 'remote';
      responseAttribute: string;
      timeoutSec: number;
      unsuccessfulResponse?: string;
    };

export interface EndpointConfig {
  endpoint: string;
  methods: string[];
  security: Security;
  converter: ConverterConfig;
  response: ResponseConfig;
}

export interface AttributeRequestConfig {
  endpoint: string;
  type: 'shared' | 'client';
  methods: string[];
  security: Security;
  /** Seconds to wait for the platform's answer. */
  timeoutSec: number;
  deviceNameExpression: string;
  attributeNameExpression: string;
}

/** An outgoing HTTP call (attribute updates and server-side RPC). */
export interface OutgoingCallConfig {
  method: string;
  sslVerify: boolean;
  headers: Record<string, string>;
  security: Security;
  /** Seconds, per attempt. */
  timeoutSec: number;
  tries: number;
  allowRedirects: boolean;
  requestUrlExpression: string;
  valueExpression: string;
  /** A GET carries the body too (a gateway 3.8 quirks mode). */
  bodyWithGet: boolean;
}

export interface AttributeUpdateRule extends OutgoingCallConfig {
  deviceNameFilter: RegExp;
  attributeFilter: RegExp;
}

export interface ServerSideRpcRule extends OutgoingCallConfig {
  deviceNameFilter: RegExp;
  methodFilter: RegExp;
  /** Seconds: the whole wait for the external reply, every try included. */
  responseTimeoutSec: number;
  /**
   * The placeholder of the RPC id in the expressions (requestId; restId in a gateway 3.8 quirks
   * mode).
   */
  idPlaceholder: 'requestId' | 'restId';
}

export interface ConnectorConfig {
  server: { host: string; port: number; ssl: boolean; security?: { cert: string; key: string } };
  mapping: EndpointConfig[];
  attributeRequests: AttributeRequestConfig[];
  attributeUpdates: AttributeUpdateRule[];
  serverSideRpc: ServerSideRpcRule[];
  /** The real gateway version's differences this connector reproduces (none: the specification). */
  quirks: ConnectorQuirks;
}
