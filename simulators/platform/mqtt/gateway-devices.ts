/**
 * The devices a gateway session has connected (docs/reference/interfaces.md "States and
 * transitions"): connect finds or creates the device (and its profile), then routes its
 * shared-attribute updates and RPC commands to the gateway; disconnect stops that; a disconnect for
 * an unknown name changes nothing. Publishing data for a device that is not connected connects it
 * implicitly with the profile `default` (docs/reference/platform-facts.md §4.5). What the routing
 * decides is named steps (ROUTING_STEPS: admitting a connect, creating a device, what a disconnect
 * leaves, forwarding an update, the messages an update and an RPC make); the planted faults
 * (faults/catalogue/mqtt-gateway-api.ts) are wrappers of those steps (ROUTING_FAULTS,
 * faults/steps.ts).
 */
import { type StepFaults, withFaults } from '../../../faults/steps';
import { stringifyLossless } from '../../../lib/kv/values';
import { GATEWAY_API } from '../../../schemas/gateway';
import { QuotaExceededError } from '../core/errors';
import type { Device, RpcRequest } from '../core/model';
import type { DeviceEvents, DeviceRouter, SharedAttributesChange } from '../core/event-hub';
import { sharedChangeDocument } from '../core/render';
import { PublishFailure, REASON } from './reason-codes';
import type { PlatformCore } from '../core/platform-core';

const GATEWAY_ATTRIBUTES_TOPIC = GATEWAY_API.attributes.topic;
const GATEWAY_RPC_TOPIC = GATEWAY_API.rpc.topic;

/**
 * One connected sub-device's routing, subscribed to the device's events as a router
 * (core/event-hub.ts DeviceRouter): the device, whether its session reached the device actor
 * (`listening`), whether it was released before that, and how many shared-attribute changes it
 * saw. One small object per sub-device instead of three listeners, a release closure and their
 * context (about 330 bytes of each; bench/sub-device-memory.ts).
 */
class Route implements DeviceRouter {
  released = false;
  listening = false;
  updates = 0;
  constructor(
    readonly gateway: GatewayDevices,
    readonly device: Device,
  ) {}

  routed<E extends keyof DeviceEvents>(
    _deviceId: string,
    event: E,
    ...args: Parameters<DeviceEvents[E]>
  ): void {
    this.gateway.routedEvent(this, event, args[0] as SharedAttributesChange | undefined);
  }
}

/**
 * What a gateway's devices use of its session (MqttSession, session.ts): declared here, so that the
 * session, which holds its GatewayDevices, and this module do not import each other.
 */
interface GatewaySession {
  readonly context: {
    readonly core: PlatformCore;
    readonly sessionsByDevice: ReadonlyMap<string, GatewaySession>;
  };
  readonly device?: Device;
  readonly v5: boolean;
  /** Set on gateway sessions (their GatewayDevices). */
  readonly gateway?: unknown;
  readonly closed: boolean;
  publish(topic: string, payload: string): boolean;
  qosFor(topic: string): number | undefined;
  onEnd(name: string, cleanup: () => void): void;
}

export class GatewayDevices {
  private readonly connected = new Map<string, Route>();

  constructor(private readonly session: GatewaySession) {}

  get size(): number {
    return this.connected.size;
  }

  isConnected(name: string): boolean {
    return this.connected.has(name);
  }

  /**
   * Connects a device by name: an existing device keeps its profile; an unknown one is created with
   * the profile named `type` (created when absent). Over the device limit: PUBACK 0x97, nothing
   * created.
   */
  connect(name: string, type = 'default'): Device {
    const known = this.connected.get(name);
    if (known && !known.device.deleted) return known.device;
    if (known) this.release(name);
    const steps = withFaults(ROUTING_STEPS, ROUTING_FAULTS);
    steps.admit(this.connected.size);
    const { core } = this.session.context;
    const device =
      core.deviceNamed(name) ??
      steps.create(core, { name, type, gatewayId: this.session.device?.id });
    this.route(device);
    return device;
  }

  /**
   * Connects every named device of one message, or none: the devices it would create are counted
   * against the device limit first, so a message beyond the limit is refused (PUBACK 0x97) before
   * any of its devices exists or any of its data is stored, and a retry after room is made stores
   * it once.
   */
  connectAll(names: readonly string[]): Device[] {
    this.reserveRoom(names);
    return names.map((name) => this.connect(name));
  }

  /**
   * Refuses (0x97) when the devices these names would create do not all fit under the tenant's
   * device limit, before anything is created or stored: a gateway message is all or nothing.
   */
  reserveRoom(names: readonly string[]): void {
    const { core } = this.session.context;
    const unknown = new Set(names.filter((name) => !core.deviceNamed(name)));
    try {
      core.checkRoomForDevices(unknown.size);
    } catch (error) {
      if (error instanceof QuotaExceededError) throw PublishFailure.quotaExceeded(error.message);
      throw error;
    }
  }

  /**
   * Stops routing the device's events to this gateway; unknown or not connected names are ignored.
   * The name is no longer connected at once (a new connect registers afresh), but its session is
   * removed later, through the scheduler (core/scheduler.ts): ThingsBoard's PUBACK leaves before
   * the device actor drops the session, so an update may still arrive shortly after
   * (GatewaySessionHandler onDeviceDisconnect → deregisterSession).
   */
  disconnect(name: string): void {
    const entry = this.connected.get(name);
    const device = entry?.device;
    if (entry) {
      this.connected.delete(name);
      this.session.context.core.scheduler.later('gatewayRemoval', () => this.unroute(entry));
    }
    if (!device) return;
    withFaults(ROUTING_STEPS, ROUTING_FAULTS).disconnected(this.session, device, {
      update: (change) => this.publishUpdate(device, change),
      rpcs: () => this.deliverRpcs(device),
    });
  }

  releaseAll(): void {
    for (const name of [...this.connected.keys()]) this.release(name);
  }

  /**
   * Routes the device's events to this gateway. The device is connected at once (the PUBACK may
   * leave), but its session reaches the device actor later, through the scheduler
   * (core/scheduler.ts): an update emitted before is dropped, as ThingsBoard's
   * GatewaySessionHandler acknowledges the connect once the device exists and registers the session
   * asynchronously (DeviceActorMessageProcessor.java 605-638 drops updates with no subscription).
   */
  private route(device: Device): void {
    const { core } = this.session.context;
    const { events } = core;
    const route = new Route(this, device);
    events.add(device.id, 'deleted', route);
    this.connected.set(device.name, route);
    core.scheduler.later('gatewaySession', () => {
      if (route.released || this.session.closed) return;
      events.add(device.id, 'shared', route);
      events.add(device.id, 'rpc', route);
      route.listening = true;
      // an RPC sent before the connect and still unexpired is delivered now
      this.deliverRpcs(device);
    });
  }

  /** An event of a routed device, from its Route. */
  routedEvent(
    route: Route,
    event: keyof DeviceEvents,
    change: SharedAttributesChange | undefined,
  ): void {
    const { device } = route;
    if (event === 'deleted') return this.release(device.name);
    if (event === 'rpc') return this.deliverRpcs(device);
    if (!withFaults(ROUTING_STEPS, ROUTING_FAULTS).forwards(route.updates++)) return;
    this.publishUpdate(device, change as SharedAttributesChange);
  }

  /** Stops a route's subscriptions (at once, or when its session had not reached the actor yet). */
  private unroute(route: Route): void {
    const { events } = this.session.context.core;
    const { id } = route.device;
    route.released = true;
    events.off(id, 'deleted', route);
    if (!route.listening) return;
    route.listening = false;
    events.off(id, 'shared', route);
    events.off(id, 'rpc', route);
  }

  /** Publishes a shared attribute change of the device: {device, data}. */
  private publishUpdate(device: Device, change: SharedAttributesChange): void {
    const message = withFaults(ROUTING_STEPS, ROUTING_FAULTS).update(this.session, device, change);
    if (!message) return;
    // delivered late, each update on its own delay (two may arrive reordered), as ThingsBoard
    this.session.context.core.scheduler.later('attributeUpdate', sender(message));
  }

  /**
   * Delivers the queued RPCs of every connected device (the gateway just subscribed to
   * v1/gateway/rpc).
   */
  deliverAllRpcs(): void {
    for (const { device } of this.connected.values()) this.deliverRpcs(device);
  }

  /**
   * Publishes every queued RPC of the device: {device, data: {id, method, params}}. Only once the
   * gateway has subscribed to v1/gateway/rpc (docs/reference/interfaces.md MQTT rule 1): until then
   * the RPC stays queued, and expires.
   */
  private deliverRpcs(device: Device): void {
    const { core } = this.session.context;
    if (this.session.qosFor(GATEWAY_RPC_TOPIC) === undefined) return;
    const steps = withFaults(ROUTING_STEPS, ROUTING_FAULTS);
    for (let rpc = core.takeRpc(device); rpc; rpc = core.takeRpc(device))
      sender(steps.rpc(this.session, device, rpc))();
  }

  private release(name: string): void {
    const entry = this.connected.get(name);
    if (!entry) return;
    this.connected.delete(name);
    this.unroute(entry);
  }
}

/** What a gateway sends: one document on one topic, to these sessions, this many times. */
interface Outgoing {
  topic: string;
  document: { device: string } & Record<string, unknown>;
  recipients: GatewaySession[];
  copies: number;
}

/** Sends the message when called; its text is written now. */
function sender({ topic, document, recipients, copies }: Outgoing): () => void {
  const message = stringifyLossless(document);
  return () => {
    for (const session of recipients)
      for (let copy = 0; copy < copies; copy++) session.publish(topic, message);
  };
}

/** What a disconnect hands its step: the routes of the device it stops. */
interface Routes {
  update(change: SharedAttributesChange): void;
  rpcs(): void;
}

/** The named steps of a gateway's device routing. */
const ROUTING_STEPS = {
  /**
   * Whether a connect is admitted, given how many devices the gateway has connected (it throws when
   * not).
   */
  admit: (_connected: number): void => undefined,
  /** Creates a device a connect names; over the tenant's device limit PUBACK 0x97. */
  create: (
    core: PlatformCore,
    { name, type, gatewayId }: { name: string; type: string; gatewayId: string | undefined },
  ): Device => {
    try {
      return core.createDevice({
        name,
        profileName: type,
        additionalInfo: { gateway: false, lastConnectedGateway: gatewayId },
      });
    } catch (error) {
      if (error instanceof QuotaExceededError) throw PublishFailure.quotaExceeded(error.message);
      throw error;
    }
  },
  /** What a disconnect leaves of the device's routes: nothing. */
  disconnected: (_session: GatewaySession, _device: Device, _routes: Routes): void => undefined,
  /** Whether the device's `count`-th shared-attribute change (from 0) is forwarded. */
  forwards: (_count: number): boolean => true,
  /** A shared-attribute change of the device, as published: {device, data}. */
  update: (
    session: GatewaySession,
    device: Device,
    change: SharedAttributesChange,
  ): Outgoing | undefined => ({
    topic: GATEWAY_ATTRIBUTES_TOPIC,
    document: { device: device.name, data: sharedChangeDocument(change) },
    recipients: [session],
    copies: 1,
  }),
  /** An RPC of the device, as published: {device, data: {id, method, params}}. */
  rpc: (session: GatewaySession, device: Device, rpc: RpcRequest): Outgoing => ({
    topic: GATEWAY_RPC_TOPIC,
    document: {
      device: device.name,
      data: { id: rpc.id, method: rpc.method, params: rpc.params ?? {} },
    },
    recipients: [session],
    copies: 1,
  }),
};

type Routing = typeof ROUTING_STEPS;
type UpdateStep = Routing['update'];
type RpcStep = Routing['rpc'];

/** Every gateway session of the platform. */
const everyGateway = (session: GatewaySession) =>
  [...session.context.sessionsByDevice.values()].filter((other) => other.gateway);

/** A fault that changes the update message (when there is one). */
const changedUpdate =
  (change: (message: Outgoing, session: GatewaySession, device: Device) => void) =>
  (step: UpdateStep): UpdateStep =>
  (session, device, shared) => {
    const message = step(session, device, shared);
    if (message) change(message, session, device);
    return message;
  };

/** A fault that changes the RPC message. */
const changedRpc =
  (
    change: (
      message: Outgoing & { document: { data: Record<string, unknown> } },
      session: GatewaySession,
    ) => void,
  ) =>
  (step: RpcStep): RpcStep =>
  (session, device, rpc) => {
    const message = step(session, device, rpc);
    change(message as Outgoing & { document: { data: Record<string, unknown> } }, session);
    return message;
  };

/** The planted faults of the routing, wrappers of its steps. */
const ROUTING_FAULTS: StepFaults<Routing> = {
  'GW-GEN-01:one-device-per-gateway': {
    admit: (step) => (connected) => {
      if (connected > 0)
        throw new PublishFailure(REASON.QUOTA_EXCEEDED, 'one device per gateway', false);
      step(connected);
    },
  },
  'GW-LIM-01:limit-one-early': {
    create: (step) => (core, input) => {
      if (core.maxDevices > 0 && core.devices.size + 1 >= core.maxDevices)
        throw PublishFailure.quotaExceeded('the device limit is reached');
      return step(core, input);
    },
  },
  'GW-LIM-01:limit-not-enforced': {
    create: (step) => (core, input) => {
      const limit = core.maxDevices;
      core.maxDevices = 0;
      try {
        return step(core, input);
      } finally {
        core.maxDevices = limit;
      }
    },
  },
  'GW-STATE-06:updates-still-routed': {
    disconnected: (step) => (session, device, routes) => {
      step(session, device, routes);
      session.onEnd(
        `fault:updates:${device.name}`,
        session.context.core.on(device, 'shared', (change) => routes.update(change)),
      );
    },
  },
  'GW-STATE-06:rpc-still-routed': {
    disconnected: (step) => (session, device, routes) => {
      step(session, device, routes);
      session.onEnd(
        `fault:rpc:${device.name}`,
        session.context.core.on(device, 'rpc', () => routes.rpcs()),
      );
    },
  },
  'GW-EVT-01:first-update-only': { forwards: () => (count) => count === 0 },
  'GW-ATTR-03:v3-updates-withheld': {
    update: (step) => (session, device, change) =>
      session.v5 ? step(session, device, change) : undefined,
  },
  'GW-ATTR-03:all-shared-attributes': {
    update: changedUpdate((message, _session, device) => {
      message.document.data = Object.fromEntries(
        [...device.attributes.SHARED_SCOPE].map(([key, attribute]) => [key, attribute.value]),
      );
    }),
  },
  'GW-ATTR-03:data-member-renamed': {
    update: changedUpdate((message) => {
      const { device, data } = message.document;
      message.document = { device, values: data };
    }),
  },
  'GW-ATTR-03:update-duplicated': {
    update: changedUpdate((message) => {
      message.copies = 2;
    }),
  },
  'GW-EVT-02:updates-to-every-gateway': {
    update: changedUpdate((message, session) => {
      message.recipients = everyGateway(session);
    }),
  },
  'GW-RPC-01:id-as-string': {
    rpc: changedRpc(({ document: { data } }) => {
      data.id = String(data.id);
    }),
  },
  'GW-RPC-01:params-dropped': {
    rpc: changedRpc(({ document: { data } }) => {
      data.params = {};
    }),
  },
  'GW-EVT-03:rpc-on-wrong-topic': {
    rpc: changedRpc((message) => {
      message.topic = `${GATEWAY_RPC_TOPIC}/request`;
    }),
  },
  'GW-RPC-01:rpc-duplicated': {
    rpc: changedRpc((message) => {
      message.copies = 2;
    }),
  },
  'GW-RULE-03:rpc-to-every-gateway': {
    rpc: changedRpc((message, session) => {
      message.recipients = everyGateway(session);
    }),
  },
};
