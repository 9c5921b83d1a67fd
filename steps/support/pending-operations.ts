/**
 * Requests a When step starts and a Then step awaits (long-polls, RPC calls, requests held by the
 * platform), typed by kind: what `start` stored under a kind is what `get` gives back, so no read
 * site casts.
 */
import type { AdminResponse } from '../../src/admin-client';
import type { ConnectorResponse } from '../../simulators/connector-client';
import type { DeviceResponse } from '../../simulators/device/http-device';
import type { SessionLimits } from '../../simulators/device/mqtt-device';

/** What each kind of pending operation resolves to. */
export interface PendingResults {
  /** An HTTP device's long-poll for shared attribute updates. */
  attributeUpdatesPoll: DeviceResponse;
  /** An HTTP device's long-poll for an RPC request. */
  rpcPoll: DeviceResponse;
  /** The platform's RPC call to a device (by local name, and by `local:method`). */
  rpcCall: AdminResponse;
  /**
   * An MQTT device's attribute request: the answer's document (plain JSON), or nothing within the
   * wait.
   */
  mqttAttributes: Record<string, unknown> | undefined;
  /** An MQTT device's client-side RPC: its answer, or nothing within the wait. */
  mqttClientRpc: unknown;
  /** The getSessionLimits RPC of an MQTT device or gateway. */
  sessionLimits: SessionLimits | undefined;
  /** A request of the REST connector's client, by its label in the scenario. */
  connectorRequest: ConnectorResponse;
  /** The platform's two-way RPC to a connector device. */
  connectorRpc: AdminResponse;
}

export type PendingKind = keyof PendingResults;

type PendingByKind = { [Kind in PendingKind]?: Map<string, Promise<PendingResults[Kind]>> };

export class PendingOperations {
  private readonly byKind: PendingByKind = {};
  /** How to start each operation again (`again` of start), by kind and key. */
  private readonly starters = new Map<string, () => Promise<unknown>>();
  /** When each operation was started (Date.now()), by kind and key. */
  private readonly startedAt = new Map<string, number>();

  /**
   * Keeps an operation under way for a later step; `key` tells apart those of one kind (a device's
   * local name). `again` starts the same operation anew (restart).
   */
  start<Kind extends PendingKind>(
    kind: Kind,
    key: string,
    operation: Promise<PendingResults[Kind]>,
    again?: () => Promise<PendingResults[Kind]>,
  ): void {
    if (again) this.starters.set(`${kind}\u0000${key}`, again);
    const started: NonNullable<PendingByKind[Kind]> = this.byKind[kind] ?? new Map();
    // a failure before the step that awaits it (a reset under a held request) must wait for that
    // step: unhandled meanwhile, it would fail whichever step runs at that moment as an uncaught
    // error, past the step wrapper that names a transport error (steps/hooks.ts), and a FAIL would
    // follow for the network's sake
    operation.catch(() => undefined);
    started.set(key, operation);
    this.byKind[kind] = started;
    this.startedAt.set(`${kind}\u0000${key}`, Date.now());
  }

  /** When the operation of that kind and key was started (Date.now()), if one was. */
  started(kind: PendingKind, key: string): number | undefined {
    return this.startedAt.get(`${kind}\u0000${key}`);
  }

  /**
   * The operation a step started, or undefined when none was (awaiting undefined gives undefined).
   */
  get<Kind extends PendingKind>(
    kind: Kind,
    key: string,
  ): Promise<PendingResults[Kind]> | undefined {
    return this.byKind[kind]?.get(key);
  }

  /**
   * Starts the operation of that kind and key anew, as its start's `again` says, in place of the
   * one under way (which has ended, or is left to end); undefined when it cannot be started again.
   */
  restart<Kind extends PendingKind>(
    kind: Kind,
    key: string,
  ): Promise<PendingResults[Kind]> | undefined {
    const again = this.starters.get(`${kind}\u0000${key}`) as
      | (() => Promise<PendingResults[Kind]>)
      | undefined;
    if (!again) return undefined;
    const operation = again();
    this.start(kind, key, operation, again);
    return operation;
  }

  /**
   * Resolves once every operation started has ended, however (abandoned ones must not leak into the
   * next scenario).
   */
  async settled(): Promise<void> {
    const operations = Object.values(this.byKind).flatMap((started) => [...started.values()]);
    await Promise.allSettled(operations);
  }
}
