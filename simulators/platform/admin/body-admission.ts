/**
 * Memory for admin-API request bodies, bounded by admission (issue 26 item 5). ThingsBoard bounds
 * /api/** bodies at 16 MiB (thingsboard.yml `server.http.max_payload_size`, /root/tbw/tb
 * application/src/main/resources/thingsboard.yml:56) and the reference keeps that limit (route.ts);
 * what it adds is a bound on the bytes of bodies being read and parsed at once: a body is admitted
 * before a byte of it is read, for its declared length (a chunked body, whose length is unknown,
 * for the whole limit), and holds its bytes until its answer is sent. One 49 MB body had cost 1.7
 * GB and eight at once 4.1 GB; now at most BODY_BUDGET_BYTES of bodies are in work at a time,
 * whatever the number of clients.
 *
 * A body that does not fit waits (its socket unread, TCP holding the sender back) for at most
 * ADMISSION_WAIT_MS, then gets 503 in ThingsBoard's error shape (errorCode 2, general: ThingsBoard
 * has no answer of its own for an overloaded REST API; its error handler maps 503 to GENERAL,
 * ThingsboardErrorResponseHandler.java:84). Bodies below SMALL_BODY_BYTES (parsed on the event
 * loop) are admitted from a reserve the large ones may not take, so that eight 16 MiB bodies never
 * hold up a login or a device's creation.
 */
import { PlatformError } from '../core/errors';

/**
 * The bytes of admin bodies in work at once: two bodies of the 16 MiB limit and the small bodies'
 * reserve.
 */
const BODY_BUDGET_BYTES = 40 * 1024 * 1024;
/**
 * Kept for bodies below SMALL_BODY_BYTES: a large body is admitted only while this much stays free.
 */
const SMALL_BODY_RESERVE_BYTES = 8 * 1024 * 1024;
/** Bodies from this size on count as large (the payload worker's threshold, core/off-thread.ts). */
const SMALL_BODY_BYTES = 256 * 1024;
/** How long a body waits for admission before 503. */
const ADMISSION_WAIT_MS = 30_000;

/**
 * The answer to a body that found no room within ADMISSION_WAIT_MS: 503, ThingsBoard's general
 * errorCode 2.
 */
export class BodyNotAdmittedError extends PlatformError {
  constructor(bytes: number, waitedMs: number) {
    super(
      `Server is busy: ${bytes} bytes of request body could not be admitted within ${waitedMs} ms (admin bodies in work are bounded); retry later`,
      503,
      2,
    );
  }
}

interface Waiter {
  bytes: number;
  grant: () => void;
}

/**
 * A semaphore of bytes, first fit: a waiter that fits is admitted even behind a larger one that
 * does not.
 */
export class BodyAdmission {
  private inUse = 0;
  private peak = 0;
  private refused = 0;
  private queued = 0;
  private readonly waiting: Waiter[] = [];

  constructor(
    readonly capacityBytes = BODY_BUDGET_BYTES,
    readonly reserveBytes = SMALL_BODY_RESERVE_BYTES,
    readonly smallBytes = SMALL_BODY_BYTES,
    readonly waitMs = ADMISSION_WAIT_MS,
  ) {}

  private fits(bytes: number): boolean {
    const room =
      bytes < this.smallBytes ? this.capacityBytes : this.capacityBytes - this.reserveBytes;
    return this.inUse + bytes <= room;
  }

  private take(bytes: number): () => void {
    this.inUse += bytes;
    this.peak = Math.max(this.peak, this.inUse);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inUse -= bytes;
      this.admitWaiting();
    };
  }

  private admitWaiting(): void {
    for (let index = 0; index < this.waiting.length; ) {
      const waiter = this.waiting[index]!;
      if (this.fits(waiter.bytes)) {
        this.waiting.splice(index, 1);
        waiter.grant();
      } else index++;
    }
  }

  /**
   * Admits `bytes` of body (at most the large bodies' room: the caller refuses a body over its
   * limit first): resolves with the release once they fit, rejects with BodyNotAdmittedError after
   * waitMs.
   */
  admit(bytes: number): Promise<() => void> {
    const size = Math.max(0, Math.min(bytes, this.capacityBytes - this.reserveBytes));
    if (this.fits(size)) return Promise.resolve(this.take(size));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        bytes: size,
        grant: () => {
          clearTimeout(timer);
          resolve(this.take(size));
        },
      };
      const timer = setTimeout(() => {
        const index = this.waiting.indexOf(waiter);
        if (index >= 0) this.waiting.splice(index, 1);
        this.refused++;
        reject(new BodyNotAdmittedError(bytes, this.waitMs));
      }, this.waitMs);
      this.queued++;
      this.waiting.push(waiter);
      this.admitWaiting();
    });
  }

  /**
   * What the bound has done so far: bytes in work now, the most at once, bodies waiting, that
   * waited, refused.
   */
  stats(): {
    inUseBytes: number;
    peakBytes: number;
    waiting: number;
    queued: number;
    refused: number;
  } {
    return {
      inUseBytes: this.inUse,
      peakBytes: this.peak,
      waiting: this.waiting.length,
      queued: this.queued,
      refused: this.refused,
    };
  }
}
