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
 * One subscriber to the events of many devices (a gateway's sub-devices): subscribed to each
 * device like a listener, but one object for all of them, told which device an event is of. A
 * gateway fleet subscribes tens of thousands of sub-devices: a closure per device and event, with
 * their context, was about 330 bytes of each (bench/sub-device-memory.ts).
 */
export interface DeviceRouter {
  routed<E extends keyof DeviceEvents>(
    deviceId: string,
    event: E,
    ...args: Parameters<DeviceEvents[E]>
  ): void;
}

/** What subscribes to an event of a device: a listener, or a router. */
type Subscriber<E extends keyof DeviceEvents> = DeviceEvents[E] | DeviceRouter;

/**
 * One device's subscribers by event, in the order they subscribed: a lone one is held as itself,
 * two or more in an array; an event nobody listens to has neither.
 */
type DeviceListeners = {
  [E in keyof DeviceEvents]: Subscriber<E> | Array<Subscriber<E>> | undefined;
};

/** The subscribers of one event as a list (a lone one held as itself: a list of one). */
function listOf<L>(held: L | L[] | undefined): readonly L[] {
  if (held === undefined) return [];
  return Array.isArray(held) ? held : [held];
}

/**
 * Plain arrays per device rather than an EventEmitter per device: a gateway fleet keeps three
 * listeners for each of tens of thousands of sub-devices, and an emitter (with its dictionary-mode
 * event table) cost several times more; a lone listener is not even wrapped in an array (three
 * arrays of one were about 170 bytes of each sub-device; bench/sub-device-memory.ts). Semantics as
 * EventEmitter's: listeners run in subscription order, an unsubscribe during an emit does not stop
 * the listeners of that emit, the same listener subscribed twice runs twice, a listener's exception
 * propagates to the emitter.
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
  add<E extends keyof DeviceEvents>(deviceId: string, event: E, listener: Subscriber<E>): void {
    let own = this.listeners.get(deviceId);
    if (!own)
      this.listeners.set(
        deviceId,
        (own = { shared: undefined, rpc: undefined, deleted: undefined }),
      );
    // copy on write: an emit iterates the list it started with, whatever subscribes or
    // unsubscribes meanwhile
    const before = own[event] as DeviceListeners[E];
    own[event] = (
      before === undefined ? listener : [...listOf(before), listener]
    ) as DeviceListeners[E];
  }

  /** Unsubscribes the last subscription of `listener` to the event (none: nothing happens). */
  off<E extends keyof DeviceEvents>(deviceId: string, event: E, listener: Subscriber<E>): void {
    const device = this.listeners.get(deviceId);
    const current = listOf(device?.[event] as DeviceListeners[E]);
    const index = current.lastIndexOf(listener);
    if (!device || index < 0) return;
    const remaining = current.filter((_, i) => i !== index);
    device[event] = (
      remaining.length === 0 ? undefined : remaining.length === 1 ? remaining[0] : remaining
    ) as DeviceListeners[E];
    if (!device.shared && !device.rpc && !device.deleted) this.listeners.delete(deviceId);
  }

  emit<E extends keyof DeviceEvents>(
    deviceId: string,
    event: E,
    ...args: Parameters<DeviceEvents[E]>
  ): void {
    const held = this.listeners.get(deviceId)?.[event] as
      | Subscriber<E>
      | Array<Subscriber<E>>
      | undefined;
    if (held === undefined) return;
    if (!Array.isArray(held)) return notify(held, deviceId, event, args);
    for (const subscriber of held) notify(subscriber, deviceId, event, args);
  }

  /**
   * Whether any session listens to this event of the device (e.g. is any device session subscribed
   * to RPC).
   */
  hasListeners(deviceId: string, event: keyof DeviceEvents): boolean {
    return this.listeners.get(deviceId)?.[event] !== undefined;
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

/** Calls a listener with the event's arguments, or tells a router which device the event is of. */
function notify<E extends keyof DeviceEvents>(
  subscriber: Subscriber<E>,
  deviceId: string,
  event: E,
  args: Parameters<DeviceEvents[E]>,
): void {
  if (typeof subscriber === 'function')
    (subscriber as (...args: Parameters<DeviceEvents[E]>) => void)(...args);
  else subscriber.routed(deviceId, event, ...args);
}
