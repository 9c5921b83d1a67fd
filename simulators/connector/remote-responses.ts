/**
 * The remote response variant: a request waits until the platform sets the configured shared
 * attribute (responseAttribute) of its device, and is answered with that value. Each answer goes to
 * exactly one waiting request of that device, the oldest; an answer nobody waits for is dropped,
 * never kept for a later caller (the real gateway's global queue answers the wrong requests,
 * docs/reference/rest-connector-facts.md §5, §7).
 */
import type { AttributeUpdate } from '../gateway/mqtt-gateway';

interface Waiter {
  attribute: string;
  resolve: (value: unknown) => void;
}

export class RemoteResponses {
  private readonly waiters = new Map<string, Waiter[]>();

  /**
   * Registers a waiter before the request's data is forwarded (so a quick answer is not missed);
   * `wait` then resolves with the value, or undefined after timeoutSec (seconds).
   */
  expect(
    deviceName: string,
    attribute: string,
  ): { wait(timeoutSec: number): Promise<unknown>; cancel(): void } {
    let settle: (value: unknown) => void = () => {};
    const answered = new Promise<unknown>((resolve) => (settle = resolve));
    const waiter: Waiter = { attribute, resolve: (value) => settle(value) };
    const list = this.waiters.get(deviceName) ?? [];
    list.push(waiter);
    this.waiters.set(deviceName, list);
    const cancel = () => {
      const current = this.waiters.get(deviceName);
      if (!current) return;
      const remaining = current.filter((item) => item !== waiter);
      if (remaining.length) this.waiters.set(deviceName, remaining);
      else this.waiters.delete(deviceName);
    };
    return {
      cancel,
      wait: async (timeoutSec) => {
        let timer: NodeJS.Timeout | undefined;
        const timedOut = new Promise<undefined>(
          (resolve) => (timer = setTimeout(() => resolve(undefined), timeoutSec * 1000)),
        );
        try {
          return await Promise.race([answered, timedOut]);
        } finally {
          clearTimeout(timer);
          cancel();
        }
      },
    };
  }

  /**
   * Hands an update's attributes to the device's waiters; answers the update without the attributes
   * consumed.
   */
  deliver(update: AttributeUpdate): AttributeUpdate {
    const list = this.waiters.get(update.device);
    if (!list) return update;
    const rest = { ...update.data };
    for (const [key, value] of Object.entries(update.data)) {
      const index = list.findIndex((waiter) => waiter.attribute === key);
      if (index < 0) continue;
      const [waiter] = list.splice(index, 1);
      waiter!.resolve(value);
      delete rest[key];
    }
    if (!list.length) this.waiters.delete(update.device);
    return { ...update, data: rest };
  }
}
