/**
 * The event hub: what a device's transport sessions listen to: the HTTP long-polls and the MQTT
 * sessions of devices and gateways (mqtt/subscribe.ts, mqtt/gateway-devices.ts), one subscription
 * per session, removed when the session ends.
 *
 * Events carry no transport format: a session renders a change in its own protocol (HTTP body, MQTT
 * publish). Emitting to a device nobody listens to costs one map lookup (the hot path of attribute
 * saves).
 */
import type { Attribute } from './model';

export interface SharedAttributesChange {
  /** Changed keys with their new values (empty on a pure deletion). */
  updated: Map<string, Attribute>;
  /** Deleted keys (empty on a pure update). */
  deleted: string[];
}

export interface DeviceEvents {
  /** Shared attributes changed (REST API, firmware assignment, ...). */
  shared: (change: SharedAttributesChange) => void;
  /** A server-side RPC was queued for the device: a session may take it (PlatformCore.takeRpc). */
  rpc: () => void;
  /** The device was deleted: every session of it ends. */
  deleted: () => void;
}

/**
 * One device's listeners by event, in the order they subscribed; an event nobody listens to has no
 * array.
 */
type DeviceListeners = { [E in keyof DeviceEvents]: Array<DeviceEvents[E]> | undefined };

/**
 * Plain arrays per device rather than an EventEmitter per device: a gateway fleet keeps three
 * listeners for each of tens of thousands of sub-devices, and an emitter (with its dictionary-mode
 * event table) cost several times more. Semantics as EventEmitter's: listeners run in subscription
 * order, an unsubscribe during an emit does not stop the listeners of that emit, the same listener
 * subscribed twice runs twice, a listener's exception propagates to the emitter.
 */
export class EventHub {
  private readonly listeners = new Map<string, DeviceListeners>();

  /** Subscribes to one event of one device; returns the unsubscribe function. */
  on<E extends keyof DeviceEvents>(
    deviceId: string,
    event: E,
    listener: DeviceEvents[E],
  ): () => void {
    this.add(deviceId, event, listener);
    return () => this.off(deviceId, event, listener);
  }

  /**
   * Subscribes without making an unsubscribe function: a holder of many subscriptions (a gateway's
   * sub-devices) keeps its listeners and gives them to off(), saving a closure and its context per
   * subscription.
   */
  add<E extends keyof DeviceEvents>(deviceId: string, event: E, listener: DeviceEvents[E]): void {
    let own = this.listeners.get(deviceId);
    if (!own)
      this.listeners.set(
        deviceId,
        (own = { shared: undefined, rpc: undefined, deleted: undefined }),
      );
    // copy on write: an emit iterates the array it started with, whatever subscribes or
    // unsubscribes meanwhile
    const before = own[event] as Array<DeviceEvents[E]> | undefined;
    own[event] = (before ? [...before, listener] : [listener]) as DeviceListeners[E];
  }

  /** Unsubscribes the last subscription of `listener` to the event (none: nothing happens). */
  off<E extends keyof DeviceEvents>(deviceId: string, event: E, listener: DeviceEvents[E]): void {
    const device = this.listeners.get(deviceId);
    const current = device?.[event] as Array<DeviceEvents[E]> | undefined;
    const index = current ? current.lastIndexOf(listener) : -1;
    if (!device || !current || index < 0) return;
    device[event] = (
      current.length === 1 ? undefined : current.filter((_, i) => i !== index)
    ) as DeviceListeners[E];
    if (!device.shared && !device.rpc && !device.deleted) this.listeners.delete(deviceId);
  }

  emit<E extends keyof DeviceEvents>(
    deviceId: string,
    event: E,
    ...args: Parameters<DeviceEvents[E]>
  ): void {
    const list = this.listeners.get(deviceId)?.[event] as
      | Array<(...args: Parameters<DeviceEvents[E]>) => void>
      | undefined;
    if (list) for (const listener of list) listener(...args);
  }

  /**
   * Whether any session listens to this event of the device (e.g. is any device session subscribed
   * to RPC).
   */
  hasListeners(deviceId: string, event: keyof DeviceEvents): boolean {
    return (this.listeners.get(deviceId)?.[event]?.length ?? 0) > 0;
  }

  /** Drops a device's listeners (after its `deleted` event). */
  forget(deviceId: string): void {
    const own = this.listeners.get(deviceId);
    if (own) own.shared = own.rpc = own.deleted = undefined;
    this.listeners.delete(deviceId);
  }

  close(): void {
    for (const deviceId of [...this.listeners.keys()]) this.forget(deviceId);
  }
}
