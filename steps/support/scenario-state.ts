/**
 * The kinds of scenario state a step leaves for a later step, each with its own type
 * (steps/world.ts holds them): platform ids by local name, time windows around requests, the REST
 * connector client's credentials, MQTT connect outcomes.
 */
import type { AdminResponse } from '../../src/admin-client';
import type { DeviceResponse } from '../../simulators/device/http-device';
import type { RawMqttClient } from '../../simulators/device/raw-mqtt-client';
import type { OversizedAnswer } from './robustness/oversized-request';

/**
 * The administration-API credentials a scenario obtained (steps/support/admin-auth.ts); never
 * printed.
 */
export interface AdminAuthState {
  /** The last answer of an authentication request. */
  answer?: AdminResponse;
  /** By placeholder name (`jwt`, `refresh token`, `api key`). */
  secrets: Map<string, string>;
  loggedInAt?: number;
  /**
   * The scenario has waited the refresh token's lifetime out: an offer of it is now meant to be
   * refused.
   */
  refreshLifetimeWaited?: boolean;
  /**
   * The scenario has waited the access token's lifetime out: a request with it is now meant to be
   * refused.
   */
  accessLifetimeWaited?: boolean;
  apiKeyId?: string;
  /** When the API key's creation was answered (Date.now()): it was made before that. */
  apiKeyMadeAt?: number;
  /**
   * The lifetimes tokens of this scenario get: the target's stated ones, or those it set through
   * the JWT settings.
   */
  lifetimes?: { accessSec?: number; refreshSec?: number };
}

/** What a robustness scenario keeps between its steps (robustness*.steps.ts). */
export interface RobustnessState {
  oversized?: Promise<OversizedAnswer>;
  bareClients: Map<string, RawMqttClient>;
  /** When the well-behaved device's telemetry was last answered (it is read back afterwards). */
  servedAt?: number;
  /** The long-polls held at once, with when each was sent and answered (Date.now()). */
  polls: Array<Promise<{ response: DeviceResponse; sentAt: number; answeredAt: number }>>;
  /**
   * By bare connection: the attribute updates it has read, by their iotc_sequence (the bulk
   * updates) and iotc_marker (the positive control sent after it reads again).
   */
  updatesRead: Map<string, { sequences: Set<number>; markers: Set<number> }>;
  /** By bare connection: when its TCP connection was open (Date.now()). */
  openedAt: Map<string, number>;
  /**
   * Whether the target refused the payload with bytes that are not UTF-8 (undefined: none was
   * sent).
   */
  invalidUtf8Refused?: boolean;
}

/** What a scenario names locally and the platform knows by an id. */
export type IdKind = 'deviceProfile' | 'otaPackage' | 'persistentRpc';

/** Local names to platform ids, by kind (a profile "p" and a package "p" are different things). */
export class PlatformIds {
  private readonly byKind = new Map<IdKind, Map<string, string>>();

  set(kind: IdKind, local: string, id: string): void {
    const ids = this.byKind.get(kind) ?? new Map<string, string>();
    ids.set(local, id);
    this.byKind.set(kind, ids);
  }

  get(kind: IdKind, local: string): string | undefined {
    return this.byKind.get(kind)?.get(local);
  }
}

/**
 * The local clock around a request: a timestamp the platform assigned while serving it lies in
 * between.
 */
export interface TimeWindow {
  start: number;
  end: number;
}

/** What the REST connector's client sends instead of the endpoint's configured credentials. */
export type ConnectorCredentials =
  | { kind: 'none' }
  | { kind: 'password'; password: string }
  | { kind: 'authorization'; header: string };

/** How the platform answered an MQTT CONNECT. */
export type MqttConnectOutcome = { accepted: true } | { accepted: false; reasonCode: number };

/**
 * The ids of the RPC requests a gateway received for one of its devices: the latest, and the latest
 * per method.
 */
export interface ReceivedRpcIds {
  latest: number;
  byMethod: Map<string, number>;
}
