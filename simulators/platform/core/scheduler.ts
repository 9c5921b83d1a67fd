/**
 * The ONE place where the reference platform's asynchrony lives (issue 24 item 2, "the twin is
 * asynchronous like ThingsBoard"). Real ThingsBoard acknowledges before it acts: the SUBACK and a
 * gateway connect's PUBACK leave before the device actor has the session and its subscription, so a
 * shared-attribute update that reaches the actor first is dropped (DeviceActorMessageProcessor.java
 * 605-638: no attributeSubscriptions yet, "No registered attributes subscriptions to process");
 * attribute updates reach the device up to ~2 s later, sometimes reordered; a claim is answered 200
 * / PUBACK once queued and registered later; telemetry and attribute saves are applied after their
 * PUBACK / 200; a gateway disconnect's PUBACK leaves before the device session is removed.
 *
 * Handlers acknowledge first and hand the effect to `later(kind, fn)`; nothing waits in a handler.
 * Without asynchrony (the default, and the reference's specification mode) `later` runs fn at once,
 * so the reference behaves exactly as it always did. With asynchrony, fn runs after a delay drawn
 * from a seeded PRNG within the kind's bounds: the same seed and the same sequence of calls give
 * the same delays, so a run is replayed by its seed.
 *
 * Ordering: every kind but `attributeUpdate` keeps its effects in the order they were handed over
 * (a FIFO lane; a gateway's session registration and removal share one lane, so a connect,
 * disconnect, connect ends connected); attribute update deliveries each take their own delay and
 * may overtake each other, as on ThingsBoard.
 */

export const ASYNC_KINDS = [
  /** SUBSCRIBE: the subscription takes effect in the device actor (SUBACK already sent). */
  'subscription',
  /** v1/gateway/connect: the device's session is registered (PUBACK already sent). */
  'gatewaySession',
  /** v1/gateway/disconnect: the device's session is removed (PUBACK already sent). */
  'gatewayRemoval',
  /** device or gateway claim: the claim is registered (200 / PUBACK already sent). */
  'claim',
  /** telemetry or attributes from a device or gateway: stored (200 / PUBACK already sent). */
  'save',
  /** a shared-attribute update reaches the device or gateway session (reorderable). */
  'attributeUpdate',
] as const;

export type AsyncKind = (typeof ASYNC_KINDS)[number];

/** Bounds of one kind's delay, inclusive, in milliseconds. */
export interface DelayBounds {
  minMs: number;
  maxMs: number;
}

export interface AsynchronyOptions {
  /** Seed of the delays (a 32-bit unsigned integer); the same seed replays the same delays. */
  seed: number;
  /** Delay bounds per kind; a kind left out takes THINGSBOARD_DELAYS_MS's. */
  delaysMs?: Partial<Record<AsyncKind, DelayBounds>>;
}

/** Told of an effect that threw (it ran after its acknowledgement: nobody else can be told). */
export type EffectErrorListener = (error: unknown, kind: AsyncKind) => void;

/**
 * Delays as seen on ThingsBoard CE 4.3 (monolith, in-memory queues, this machine): attribute
 * updates reach a subscribed session up to ~2 s after the REST save answered; session and
 * subscription registration, claim registration and save application take a few hundred
 * milliseconds under load.
 */
const THINGSBOARD_DELAYS_MS: Readonly<Record<AsyncKind, DelayBounds>> = {
  subscription: { minMs: 0, maxMs: 300 },
  gatewaySession: { minMs: 0, maxMs: 300 },
  gatewayRemoval: { minMs: 0, maxMs: 300 },
  claim: { minMs: 0, maxMs: 300 },
  save: { minMs: 0, maxMs: 200 },
  attributeUpdate: { minMs: 0, maxMs: 2000 },
};

/** The FIFO lane of a kind; undefined = each effect on its own (may be reordered). */
const LANES: Record<AsyncKind, string | undefined> = {
  subscription: 'subscription',
  gatewaySession: 'gateway',
  gatewayRemoval: 'gateway',
  claim: 'claim',
  save: 'save',
  attributeUpdate: undefined,
};

/**
 * mulberry32: a 32-bit seeded PRNG in five lines. fast-check is a dependency, but its generators
 * are built for property tests (arbitraries, shrinking) and would load into every embedded
 * platform; this needs only a reproducible stream of numbers in [0, 1) from a seed.
 */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * One delay within the bounds, from the PRNG's next number (every call of later draws exactly one).
 */
export function drawDelay(random: () => number, { minMs, maxMs }: DelayBounds): number {
  return minMs + Math.floor(random() * (Math.max(minMs, maxMs) - minMs + 1));
}

/**
 * Derives the seed of one of several platforms of a run (a cucumber worker's) from the run's seed.
 */
export function deriveSeed(runSeed: number, index: number): number {
  const random = mulberry32((runSeed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0);
  return Math.floor(random() * 4294967296) >>> 0;
}

/** A fresh seed for a run that was given none. */
export function newSeed(): number {
  return Math.floor(Math.random() * 4294967296) >>> 0;
}

interface LaneEntry {
  due: number;
  fn: () => void;
}

export class Scheduler {
  /** The seed, or undefined when the platform is synchronous. */
  readonly seed: number | undefined;
  private readonly random?: () => number;
  private readonly delays: Record<AsyncKind, DelayBounds>;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly lanes = new Map<string, { queue: LaneEntry[]; running: boolean }>();
  private closed = false;

  /** Without options: synchronous (later runs fn at once). */
  constructor(
    options?: AsynchronyOptions,
    private readonly onError: EffectErrorListener = () => {},
  ) {
    this.seed = options === undefined ? undefined : options.seed >>> 0;
    this.random = options === undefined ? undefined : mulberry32(options.seed);
    this.delays = { ...THINGSBOARD_DELAYS_MS, ...options?.delaysMs };
  }

  get asynchronous(): boolean {
    return this.random !== undefined;
  }

  /**
   * Runs fn after the kind's seeded delay (at once when synchronous). An effect pending at close
   * never runs.
   */
  later(kind: AsyncKind, fn: () => void): void {
    if (!this.random) return fn();
    if (this.closed) return;
    const delay = drawDelay(this.random, this.delays[kind]);
    const lane = LANES[kind];
    if (lane === undefined) return this.timer(delay, () => this.run(kind, fn));
    const due = Date.now() + delay;
    let state = this.lanes.get(lane);
    if (!state) this.lanes.set(lane, (state = { queue: [], running: false }));
    state.queue.push({ due, fn: () => this.run(kind, fn) });
    if (!state.running) this.drain(state);
  }

  /** Pending effects are dropped (the platform is closing). */
  close(): void {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.lanes.clear();
  }

  /** Runs a lane's effects one after the other, each at its due time or after the one before it. */
  private drain(state: { queue: LaneEntry[]; running: boolean }): void {
    const next = state.queue.shift();
    if (!next) {
      state.running = false;
      return;
    }
    state.running = true;
    this.timer(Math.max(0, next.due - Date.now()), () => {
      try {
        next.fn();
      } finally {
        if (!this.closed) this.drain(state);
      }
    });
  }

  private run(kind: AsyncKind, fn: () => void): void {
    try {
      fn();
    } catch (error) {
      this.onError(error, kind);
    }
  }

  private timer(delay: number, fn: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      fn();
    }, delay);
    this.timers.add(timer);
  }
}
