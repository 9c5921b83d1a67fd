/**
 * The report rate limiter, shaped like Trendz's `simpleApiRateLimiter` executor: a pool of
 * `poolSize` workers and a bounded FIFO queue of `queueCapacity` waiting requests. A request that
 * finds the pool busy and the queue full is refused at once (no waiting). Queued requests start in
 * arrival order. Every ticket is released exactly once, on success, error or client disconnect,
 * whether it is still queued or already running.
 */
import { type StepFaults, withFaults } from '../../faults/steps';

interface LimiterStatus {
  poolSize: number;
  queueCapacity: number;
  /** Reports running now (holding a pool slot). */
  active: number;
  /** Requests waiting for a slot. */
  queued: number;
  /** Requests refused because pool and queue were full, since start. */
  rejected: number;
  /** Tickets released after holding a slot, since start. */
  completed: number;
  /** Tickets released while still queued (client gone or request invalid), since start. */
  abandoned: number;
}

type TicketState = 'queued' | 'active' | 'released';

interface Ticket {
  /**
   * Resolves when the ticket holds a pool slot; never rejects (an abandoned ticket's promise simply
   * never settles).
   */
  readonly started: Promise<void>;
  readonly state: TicketState;
  /** Gives the slot or the queue place back; idempotent. */
  release(): void;
}

class LimiterTicket implements Ticket {
  state: TicketState = 'queued';
  readonly started: Promise<void>;
  private start!: () => void;

  constructor(private readonly limiter: Limiter) {
    this.started = new Promise<void>((resolve) => {
      this.start = resolve;
    });
  }

  activate(): void {
    this.state = 'active';
    this.start();
  }

  release(): void {
    this.limiter.release(this);
  }
}

/** What admission reads and changes. */
interface Occupancy {
  readonly poolSize: number;
  readonly queueCapacity: number;
  /** Requests waiting for a slot. */
  readonly queued: number;
  /** Reports holding a slot. */
  active: number;
  rejected: number;
}

/** The steps of admitting a request (the faults below wrap them). */
interface AdmissionSteps {
  /** Whether a request starts at once. */
  hasSlot(occupancy: Occupancy): boolean;
  /** Whether a request that cannot start may wait. */
  mayQueue(occupancy: Occupancy): boolean;
  /** Counts a refusal. */
  refuse(occupancy: Occupancy): void;
}

const ADMISSION_STEPS: AdmissionSteps = {
  hasSlot: (occupancy) => occupancy.active < occupancy.poolSize,
  mayQueue: (occupancy) => occupancy.queued < occupancy.queueCapacity,
  refuse: (occupancy) => {
    occupancy.rejected++;
  },
};

const ADMISSION_FAULTS: StepFaults<AdmissionSteps> = {
  'AN-LIM-01:pool-minus-one': {
    hasSlot: () => (occupancy) => occupancy.active < occupancy.poolSize - 1,
  },
  'AN-LIM-02:unbounded-queue': { mayQueue: () => () => true },
  'AN-LIM-02:no-queue': { mayQueue: () => () => false },
  'AN-LIM-04:refusal-keeps-slot': {
    refuse: (step) => (occupancy) => {
      step(occupancy);
      occupancy.active++;
    },
  },
};

export class Limiter implements Occupancy {
  /** @internal read and changed by admission's steps */
  active = 0;
  private readonly queue: LimiterTicket[] = [];
  /** @internal read and changed by admission's steps */
  rejected = 0;
  private completed = 0;
  private abandoned = 0;

  constructor(
    readonly poolSize: number,
    readonly queueCapacity: number,
  ) {
    if (!Number.isInteger(poolSize) || poolSize < 1)
      throw new RangeError(`poolSize must be a positive integer, got ${poolSize}`);
    if (!Number.isInteger(queueCapacity) || queueCapacity < 0)
      throw new RangeError(`queueCapacity must be an integer >= 0, got ${queueCapacity}`);
  }

  /**
   * A ticket that is running or queued, or undefined when pool and queue are both full (counted as
   * rejected).
   */
  admit(): Ticket | undefined {
    const steps = withFaults(ADMISSION_STEPS, ADMISSION_FAULTS);
    const ticket = new LimiterTicket(this);
    if (steps.hasSlot(this)) {
      this.active++;
      ticket.activate();
      return ticket;
    }
    if (steps.mayQueue(this)) {
      this.queue.push(ticket);
      return ticket;
    }
    steps.refuse(this);
    return undefined;
  }

  /** @internal called through Ticket.release */
  release(ticket: LimiterTicket): void {
    if (ticket.state === 'released') return;
    if (ticket.state === 'queued') {
      const index = this.queue.indexOf(ticket);
      if (index >= 0) this.queue.splice(index, 1);
      ticket.state = 'released';
      this.abandoned++;
      return;
    }
    ticket.state = 'released';
    this.completed++;
    const next = this.queue.shift();
    if (next)
      next.activate(); // the slot passes straight to the oldest waiter
    else this.active--;
  }

  get queued(): number {
    return this.queue.length;
  }

  status(): LimiterStatus {
    return {
      poolSize: this.poolSize,
      queueCapacity: this.queueCapacity,
      active: this.active,
      queued: this.queue.length,
      rejected: this.rejected,
      completed: this.completed,
      abandoned: this.abandoned,
    };
  }
}
