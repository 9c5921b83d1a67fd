/**
 * The event hub: what a device's transport sessions listen to. The HTTP long-polls subscribe now; the MQTT
 * transport subscribes the same way later (one subscription per session, removed when the session ends).
 *
 * Events carry no transport format: a session renders a change in its own protocol (HTTP body, MQTT publish).
 * Emitting to a device nobody listens to costs one map lookup (the hot path of attribute saves).
 */
import { EventEmitter } from 'node:events';
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

export class EventHub {
  private readonly emitters = new Map<string, EventEmitter>();

  /** Subscribes to one event of one device; returns the unsubscribe function. */
  on<E extends keyof DeviceEvents>(deviceId: string, event: E, listener: DeviceEvents[E]): () => void {
    let emitter = this.emitters.get(deviceId);
    if (!emitter) {
      emitter = new EventEmitter();
      emitter.setMaxListeners(0);
      this.emitters.set(deviceId, emitter);
    }
    const own = emitter;
    own.on(event, listener);
    return () => {
      own.off(event, listener);
      if (own.eventNames().length === 0 && this.emitters.get(deviceId) === own) this.emitters.delete(deviceId);
    };
  }

  emit<E extends keyof DeviceEvents>(deviceId: string, event: E, ...args: Parameters<DeviceEvents[E]>): void {
    this.emitters.get(deviceId)?.emit(event, ...args);
  }

  /** Whether any session listens to this event of the device (e.g. is any device session subscribed to RPC). */
  hasListeners(deviceId: string, event: keyof DeviceEvents): boolean {
    return (this.emitters.get(deviceId)?.listenerCount(event) ?? 0) > 0;
  }

  /** Drops a device's listeners (after its `deleted` event). */
  forget(deviceId: string): void {
    this.emitters.get(deviceId)?.removeAllListeners();
    this.emitters.delete(deviceId);
  }

  close(): void {
    for (const emitter of this.emitters.values()) emitter.removeAllListeners();
    this.emitters.clear();
  }
}
