/**
 * A model of one gateway session (docs/reference/interfaces.md "MQTT gateway API", "States and
 * transitions", "Events"; docs/reference/platform-facts.md §4.5 where docs/reference/interfaces.md
 * is silent) and the fast-check commands that drive a real target through the gateway driver (MQTT)
 * and the admin client (HTTP) and compare it with the model: this file holds the model and the real
 * side; session-checks.ts what is checked after a command and at the end, session-commands.ts and
 * session-delivery-commands.ts the commands, session-command-arbitraries.ts how runs pick them.
 *
 * What the model holds, per device behind the gateway: whether the platform has it and with which
 * profile, whether it is connected through this gateway, its latest telemetry (value, type,
 * timestamp), its client-side and shared attributes, and the RPCs queued for it. What it predicts:
 * PUBACK success for every valid publish; implicit connect (and creation with the profile default)
 * on telemetry, attributes and attribute requests; an existing device keeps its profile; a
 * disconnect of an unknown device creates nothing; attribute answers in both request shapes;
 * shared-attribute updates and RPCs delivered to the gateway only while the device is connected; an
 * RPC to a device that is not connected is delivered when it connects if it has not expired; the
 * gateway's RPC reply reaches the admin caller. After every command the gateway must have received
 * exactly the deliveries the model predicts (checked behind a barrier: a round trip on the same
 * connection).
 */
import type { AdminClient, AdminResponse } from '../../src/admin-client';
import type { MqttGateway } from '../../simulators/gateway/mqtt-gateway';
import type { TypedValue } from '../../lib/kv/values';

// ---------------------------------------------------------------------------------------------------------------
// The model

/** Latest telemetry of a key: the model's ordering timestamp, and what must be read back. */
interface ModelTelemetry {
  value: TypedValue;
  /**
   * Order: explicit timestamps are in the past; server time is later than all of them and grows per
   * command.
   */
  order: number;
  /** The device's ts, or the window in which the server stamped it. */
  ts: { exact: number } | { from: number; to: number };
}

export interface DeviceModel {
  exists: boolean;
  connected: boolean;
  /** The profile the device was created with ('default' or a type name). */
  profile?: string;
  telemetry: Map<string, ModelTelemetry>;
  client: Map<string, TypedValue>;
  shared: Map<string, TypedValue>;
  /**
   * RPCs sent while the device was not connected, not expired yet: delivered on its next connect.
   */
  queuedRpcs: QueuedRpc[];
}

export interface Model {
  devices: DeviceModel[];
  /** Deliveries the gateway must have received so far in this run. */
  updatesDelivered: number;
  rpcsDelivered: number;
  /** Grows per command: the order of server-stamped telemetry. */
  commandSeq: number;
}

export function emptyModel(deviceCount: number): Model {
  return {
    devices: Array.from({ length: deviceCount }, () => ({
      exists: false,
      connected: false,
      telemetry: new Map(),
      client: new Map(),
      shared: new Map(),
      queuedRpcs: [],
    })),
    updatesDelivered: 0,
    rpcsDelivered: 0,
    commandSeq: 0,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The real side

interface QueuedRpc {
  method: string;
  params: Record<string, unknown>;
  answer: Promise<AdminResponse>;
}

export interface Real {
  /** The current MQTT connection of the gateway (replaced by a reconnect or a take-over). */
  gateway: MqttGateway;
  /** Opens a new connection of the same gateway (same token), answering RPCs with rpcReply. */
  openGateway(): Promise<MqttGateway>;
  admin: AdminClient;
  /** Platform names of the devices (index = device of the model). */
  names: readonly string[];
  /** Platform names of the device types a connect may name. */
  types: readonly string[];
  /**
   * An RPC timeout long enough that a queued RPC outlives the run; a short one that expires within
   * a command.
   */
  rpcTimeouts: { queued: number; expiring?: number };
  /** How long a predicted delivery (and the answer it brings) may take. */
  deliveryTimeoutMs: number;
  /**
   * Extra quiet time before concluding that nothing was delivered (0 for the in-process reference).
   */
  quietMs: number;
  eventually<T>(probe: () => Promise<T>): Promise<T>;
  /** Every RPC answer still open (queued RPCs), so that the run can wait for them. */
  openAnswers: Set<Promise<AdminResponse>>;
}
