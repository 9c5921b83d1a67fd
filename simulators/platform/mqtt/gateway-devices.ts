/**
 * The devices a gateway session has connected (docs/reference/interfaces.md "States and transitions"): connect finds or creates
 * the device (and its profile), then routes its shared-attribute updates and RPC commands to the gateway;
 * disconnect stops that; a disconnect for an unknown name changes nothing. Publishing data for a device that is not
 * connected connects it implicitly with the profile `default` (docs/reference/platform-facts.md §4.5).
 */
import { faultActive } from '../../../faults';
import { stringifyLossless } from '../../../lib/kv/values';
import { GATEWAY_API } from '../../../schemas/gateway';
import { QuotaExceededError } from '../core/errors';
import type { Device } from '../core/model';
import type { SharedAttributesChange } from '../core/event-hub';
import { sharedChangeDocument } from '../core/render';
import { PublishFailure, REASON } from './reason-codes';
import type { PlatformCore } from '../core/platform-core';

const GATEWAY_ATTRIBUTES_TOPIC = GATEWAY_API.attributes.topic;
const GATEWAY_RPC_TOPIC = GATEWAY_API.rpc.topic;

interface ConnectedDevice {
  device: Device;
  release: () => void;
}

/**
 * What a gateway's devices use of its session (MqttSession, session.ts): declared here, so that the session, which
 * holds its GatewayDevices, and this module do not import each other.
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
  private readonly connected = new Map<string, ConnectedDevice>();

  constructor(private readonly session: GatewaySession) {}

  get size(): number {
    return this.connected.size;
  }

  isConnected(name: string): boolean {
    return this.connected.has(name);
  }

  /**
   * Connects a device by name: an existing device keeps its profile; an unknown one is created with the profile
   * named `type` (created when absent). Over the device limit: PUBACK 0x97, nothing created.
   */
  connect(name: string, type = 'default'): Device {
    const known = this.connected.get(name);
    if (known && !known.device.deleted) return known.device;
    if (known) this.release(name);
    if (faultActive('GW-GEN-01:one-device-per-gateway') && this.connected.size > 0)
      throw new PublishFailure(REASON.QUOTA_EXCEEDED, 'one device per gateway', false);
    const { core } = this.session.context;
    let device = core.deviceNamed(name);
    if (
      !device &&
      faultActive('GW-LIM-01:limit-one-early') &&
      core.maxDevices > 0 &&
      core.devices.size + 1 >= core.maxDevices
    )
      throw PublishFailure.quotaExceeded('the device limit is reached');
    if (!device) {
      const create = () =>
        core.createDevice({
          name,
          profileName: type,
          additionalInfo: { gateway: false, lastConnectedGateway: this.session.device?.id },
        });
      try {
        device = create();
      } catch (error) {
        if (!(error instanceof QuotaExceededError)) throw error;
        if (!faultActive('GW-LIM-01:limit-not-enforced'))
          throw PublishFailure.quotaExceeded(error.message);
        const limit = core.maxDevices;
        core.maxDevices = 0;
        try {
          device = create();
        } finally {
          core.maxDevices = limit;
        }
      }
    }
    this.route(device);
    return device;
  }

  /**
   * Connects every named device of one message, or none: the devices it would create are counted against the
   * device limit first, so a message beyond the limit is refused (PUBACK 0x97) before any of its devices exists
   * or any of its data is stored, and a retry after room is made stores it once.
   */
  connectAll(names: readonly string[]): Device[] {
    this.reserveRoom(names);
    return names.map((name) => this.connect(name));
  }

  /**
   * Refuses (0x97) when the devices these names would create do not all fit under the tenant's device limit, before
   * anything is created or stored: a gateway message is all or nothing.
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
   * Stops routing the device's events to this gateway; unknown or not connected names are ignored. The name is
   * no longer connected at once (a new connect registers afresh), but its session is removed later, through the
   * scheduler (core/scheduler.ts): ThingsBoard's PUBACK leaves before the device actor drops the session, so an
   * update may still arrive shortly after (GatewaySessionHandler onDeviceDisconnect → deregisterSession).
   */
  disconnect(name: string): void {
    const entry = this.connected.get(name);
    const device = entry?.device;
    if (entry) {
      this.connected.delete(name);
      this.session.context.core.scheduler.later('gatewayRemoval', () => entry.release());
    }
    if (!device) return;
    const { core } = this.session.context;
    if (faultActive('GW-STATE-06:updates-still-routed'))
      this.session.onEnd(
        `fault:updates:${name}`,
        core.on(device, 'shared', (change) => this.publishUpdate(device, change)),
      );
    if (faultActive('GW-STATE-06:rpc-still-routed'))
      this.session.onEnd(
        `fault:rpc:${name}`,
        core.on(device, 'rpc', () => this.deliverRpcs(device)),
      );
  }

  releaseAll(): void {
    for (const name of [...this.connected.keys()]) this.release(name);
  }

  /**
   * Routes the device's events to this gateway. The device is connected at once (the PUBACK may leave), but its
   * session reaches the device actor later, through the scheduler (core/scheduler.ts): an update emitted before is
   * dropped, as ThingsBoard's GatewaySessionHandler acknowledges the connect once the device exists and registers
   * the session asynchronously (DeviceActorMessageProcessor.java 605-638 drops updates with no subscription).
   */
  private route(device: Device): void {
    const { core } = this.session.context;
    const { events } = core;
    // the listeners are kept here and handed back to events.off: no unsubscribe closure per subscription (a gateway
    // fleet routes tens of thousands of devices; bench/sub-device-memory.ts)
    let released = false;
    let listening = false;
    let updates = 0;
    const onDeleted = () => this.release(device.name);
    const onShared = (change: SharedAttributesChange) => {
      if (faultActive('GW-EVT-01:first-update-only') && updates++ > 0) return;
      this.publishUpdate(device, change);
    };
    const onRpc = () => this.deliverRpcs(device);
    const entry: ConnectedDevice = {
      device,
      release: () => {
        released = true;
        events.off(device.id, 'deleted', onDeleted);
        if (!listening) return;
        listening = false;
        events.off(device.id, 'shared', onShared);
        events.off(device.id, 'rpc', onRpc);
      },
    };
    events.add(device.id, 'deleted', onDeleted);
    this.connected.set(device.name, entry);
    core.scheduler.later('gatewaySession', () => {
      if (released || this.session.closed) return;
      events.add(device.id, 'shared', onShared);
      events.add(device.id, 'rpc', onRpc);
      listening = true;
      // an RPC sent before the connect and still unexpired is delivered now
      this.deliverRpcs(device);
    });
  }

  /** Publishes a shared attribute change of the device: {device, data}. */
  private publishUpdate(device: Device, change: SharedAttributesChange): void {
    if (faultActive('GW-ATTR-03:v3-updates-withheld') && !this.session.v5) return;
    let data = sharedChangeDocument(change);
    if (faultActive('GW-ATTR-03:all-shared-attributes'))
      data = Object.fromEntries(
        [...device.attributes.SHARED_SCOPE].map(([key, attribute]) => [key, attribute.value]),
      );
    const member = faultActive('GW-ATTR-03:data-member-renamed') ? 'values' : 'data';
    const message = stringifyLossless({ device: device.name, [member]: data });
    const copies = faultActive('GW-ATTR-03:update-duplicated') ? 2 : 1;
    const recipients = this.recipients(faultActive('GW-EVT-02:updates-to-every-gateway'));
    // delivered late, each update on its own delay (two may arrive reordered), as ThingsBoard
    this.session.context.core.scheduler.later('attributeUpdate', () => {
      for (const session of recipients)
        for (let copy = 0; copy < copies; copy++)
          session.publish(GATEWAY_ATTRIBUTES_TOPIC, message);
    });
  }

  /** This gateway's session; with a planted broadcast fault on, every gateway session. */
  private recipients(everyGateway: boolean): GatewaySession[] {
    if (!everyGateway) return [this.session];
    return [...this.session.context.sessionsByDevice.values()].filter((session) => session.gateway);
  }

  /** Delivers the queued RPCs of every connected device (the gateway just subscribed to v1/gateway/rpc). */
  deliverAllRpcs(): void {
    for (const { device } of this.connected.values()) this.deliverRpcs(device);
  }

  /**
   * Publishes every queued RPC of the device: {device, data: {id, method, params}}. Only once the gateway has
   * subscribed to v1/gateway/rpc (docs/reference/interfaces.md MQTT rule 1): until then the RPC stays queued, and expires.
   */
  private deliverRpcs(device: Device): void {
    const { core } = this.session.context;
    if (this.session.qosFor(GATEWAY_RPC_TOPIC) === undefined) return;
    for (let rpc = core.takeRpc(device); rpc; rpc = core.takeRpc(device)) {
      const data = {
        id: faultActive('GW-RPC-01:id-as-string') ? String(rpc.id) : rpc.id,
        method: rpc.method,
        params: faultActive('GW-RPC-01:params-dropped') ? {} : (rpc.params ?? {}),
      };
      const topic = faultActive('GW-EVT-03:rpc-on-wrong-topic')
        ? `${GATEWAY_RPC_TOPIC}/request`
        : GATEWAY_RPC_TOPIC;
      const message = stringifyLossless({ device: device.name, data });
      const copies = faultActive('GW-RPC-01:rpc-duplicated') ? 2 : 1;
      for (const session of this.recipients(faultActive('GW-RULE-03:rpc-to-every-gateway')))
        for (let copy = 0; copy < copies; copy++) session.publish(topic, message);
    }
  }

  private release(name: string): void {
    const entry = this.connected.get(name);
    if (!entry) return;
    this.connected.delete(name);
    entry.release();
  }
}
