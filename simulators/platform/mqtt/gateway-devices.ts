/**
 * The devices a gateway session has connected (interfaces.md "States and transitions"): connect finds or creates
 * the device (and its profile), then routes its shared-attribute updates and RPC commands to the gateway;
 * disconnect stops that; a disconnect for an unknown name changes nothing. Publishing data for a device that is not
 * connected connects it implicitly with the profile `default` (platform-facts.md §4.5).
 */
import { stringifyLossless } from '../../../src/kv/values';
import { QuotaExceededError } from '../core/errors';
import type { Device } from '../core/model';
import { sharedChangeDocument } from '../core/render';
import { PublishFailure } from './reason-codes';
import type { MqttSession } from './session';

export const GATEWAY_ATTRIBUTES_TOPIC = 'v1/gateway/attributes';
export const GATEWAY_RPC_TOPIC = 'v1/gateway/rpc';

interface ConnectedDevice {
  device: Device;
  release: () => void;
}

export class GatewayDevices {
  private readonly connected = new Map<string, ConnectedDevice>();

  constructor(private readonly session: MqttSession) {}

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
    const { core } = this.session.context;
    let device = core.deviceNamed(name);
    if (!device) {
      try {
        device = core.createDevice({
          name,
          profileName: type,
          additionalInfo: { gateway: false, lastConnectedGateway: this.session.device?.id },
        });
      } catch (error) {
        if (error instanceof QuotaExceededError) throw PublishFailure.quotaExceeded(error.message);
        throw error;
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
    const { core } = this.session.context;
    const unknown = new Set(names.filter((name) => !core.deviceNamed(name)));
    try {
      core.checkRoomForDevices(unknown.size);
    } catch (error) {
      if (error instanceof QuotaExceededError) throw PublishFailure.quotaExceeded(error.message);
      throw error;
    }
    return names.map((name) => this.connect(name));
  }

  /** Stops routing the device's events to this gateway; unknown or not connected names are ignored. */
  disconnect(name: string): void {
    this.release(name);
  }

  releaseAll(): void {
    for (const name of [...this.connected.keys()]) this.release(name);
  }

  private route(device: Device): void {
    const { core } = this.session.context;
    const session = this.session;
    const offShared = core.on(device, 'shared', (change) => {
      session.publish(
        GATEWAY_ATTRIBUTES_TOPIC,
        stringifyLossless({ device: device.name, data: sharedChangeDocument(change) }),
      );
    });
    const offRpc = core.on(device, 'rpc', () => this.deliverRpcs(device));
    const offDeleted = core.on(device, 'deleted', () => this.release(device.name));
    this.connected.set(device.name, {
      device,
      release: () => {
        offShared();
        offRpc();
        offDeleted();
      },
    });
    // an RPC sent before the connect and still unexpired is delivered now
    this.deliverRpcs(device);
  }

  /** Delivers the queued RPCs of every connected device (the gateway just subscribed to v1/gateway/rpc). */
  deliverAllRpcs(): void {
    for (const { device } of this.connected.values()) this.deliverRpcs(device);
  }

  /**
   * Publishes every queued RPC of the device: {device, data: {id, method, params}}. Only once the gateway has
   * subscribed to v1/gateway/rpc (interfaces.md MQTT rule 1): until then the RPC stays queued, and expires.
   */
  private deliverRpcs(device: Device): void {
    const { core } = this.session.context;
    if (this.session.qosFor(GATEWAY_RPC_TOPIC) === undefined) return;
    for (let rpc = core.takeRpc(device); rpc; rpc = core.takeRpc(device)) {
      const data = { id: rpc.id, method: rpc.method, params: rpc.params ?? {} };
      this.session.publish(GATEWAY_RPC_TOPIC, stringifyLossless({ device: device.name, data }));
    }
  }

  private release(name: string): void {
    const entry = this.connected.get(name);
    if (!entry) return;
    this.connected.delete(name);
    entry.release();
  }
}
