/**
 * The suite's one timing model. A platform acknowledges before it acts (ThingsBoard answers SUBACK,
 * PUBACK and 200 when the work is queued), the network between harness and target adds its own
 * delay, and the harness itself can be starved of CPU. So a scenario never assumes that an
 * acknowledged effect has happened:
 *
 * - **prove an effect before testing the next** (`untilEffective`): repeat a harmless action (a
 *   marker update, a claim attempt) until its effect is observed, bounded by the profile's
 *   eventuallyMs; the tries are counted in the evidence;
 * - **derive waits from measured delays** (`DelayRecord`, `quietWindowMs`): every delay the run
 *   observes between asking for an effect and seeing it is recorded, and a "nothing more arrives"
 *   window is a multiple of the largest one seen, between a floor from the profile and its
 *   eventuallyMs;
 * - **say INCONCLUSIVE, never FAIL, when the harness was starved** (`Inconclusive`, `LagWatch`): a
 *   verdict that rests on time measures the harness's own event-loop lag over its window and
 *   refuses to decide when the lag ate the margin.
 */
import { readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { IotcError } from '../../lib/errors';

/**
 * The first words of every INCONCLUSIVE error message: src/report/verdicts.ts reads a scenario's
 * error by them.
 */
export const INCONCLUSIVE_PREFIX = 'INCONCLUSIVE:';

/**
 * Thrown by a step when the harness cannot decide: its own event loop was starved over a window the
 * verdict rests on, or the path to the target failed (reset, refused, timed out). Never a statement
 * about the target.
 */
export class Inconclusive extends IotcError {
  readonly code = 'IOTC_INCONCLUSIVE';
  constructor(reason: string, options?: { cause?: unknown }) {
    super(`${INCONCLUSIVE_PREFIX} ${reason}`, options);
  }
}

/**
 * The opening of an INCONCLUSIVE reason for a starved harness (LagWatch; src/report/overall.ts
 * names the cause).
 */
export const HARNESS_STARVED = "the harness's event loop stalled";

/** What the timing model needs of the target profile. */
export interface TimingProfile {
  eventuallyMs: number;
  pollIntervalMs: number;
  /**
   * The round trip of the network to the target measured at the start of the run
   * (steps/support/network.ts), the largest over its interfaces; 0 or absent for an embedded
   * target. Already inside the other figures when they come from `networkTimeouts`; quietWindowMs
   * also floors its windows by it.
   */
  roundTripMs?: number;
}

/**
 * The timeouts of a target profile: the floors of a local network, the figures a run uses when
 * nothing was measured.
 */
export interface ProfileTimeouts {
  eventuallyMs: number;
  pollIntervalMs: number;
  requestMs: number;
}

/**
 * Round trips an effect may need beyond what the profile's eventuallyMs allows on a local network:
 * the request that asks for it (1), its delivery (1/2), the read-back or marker that proves it (1),
 * and a second try of each when a readiness proof repeats its marker (untilEffective): 5, doubled
 * for jitter.
 */
export const EFFECT_ROUND_TRIPS = 10;

/**
 * Round trips one request may need beyond requestMs: the TCP connect (1), a TLS handshake (2) and
 * the exchange (1).
 */
export const REQUEST_ROUND_TRIPS = 4;

/**
 * The largest round trip the timing model stretches its waits for. Beyond it a run is not worth its
 * hours (every wait grows by ten round trips); the waits stay those of this figure and a verdict
 * that rests on time may come out INCONCLUSIVE (starved windows) rather than wait longer.
 * steps/hooks.ts gives every step this much headroom.
 */
export const MAX_ROUND_TRIP_MS = 2000;

/**
 * The step hang guard's headroom for a remote target (steps/hooks.ts): the most networkTimeouts can
 * add.
 */
export const NETWORK_HEADROOM_MS = (EFFECT_ROUND_TRIPS + REQUEST_ROUND_TRIPS) * MAX_ROUND_TRIP_MS;

/**
 * The step hang guard's own bound (steps/hooks.ts): a step still running `marginMs` before
 * cucumber's timeout is asked `late()` for an error to end it with (the network broke one of the
 * scenario's connections: INCONCLUSIVE, naming it); when `late()` has none the step runs on and
 * cucumber's timeout stays the verdict of a real hang. cucumber raises its timeout past the step
 * wrapper, so this is the one place a transport stall can still be named.
 */
export function boundBelowHangGuard<T>(
  running: Promise<T>,
  hangGuardMs: number,
  late: () => Error | undefined,
): Promise<T> {
  const boundMs = hangGuardMs - Math.max(1000, Math.round(hangGuardMs * 0.05));
  let timer: NodeJS.Timeout | undefined;
  const bounded = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = late();
      if (error) reject(error);
    }, boundMs); // not unref'd: cleared once the step settles
  });
  return Promise.race([running, bounded]).finally(() => clearTimeout(timer));
}

/**
 * A span the scenario gives the target to act within (an API key's lifetime, a claim's duration it
 * chooses), stretched by `roundTrips` round trips of the network: the harness's requests that must
 * land inside it reach the target that much later. The check at the end of the span stays what it
 * was; only its length follows the path.
 */
export function spanOverNetwork(ms: number, profile: TimingProfile, roundTrips: number): number {
  return Math.round(ms + roundTrips * (profile.roundTripMs ?? 0));
}

/**
 * The timeouts a run against a remote target uses: the profile's figures are floors (what the
 * target needs on a local network), and the measured round trip `roundTripMs` (the largest over the
 * target's interfaces) is added as many times as a wait crosses the network:
 *
 * - eventuallyMs + EFFECT_ROUND_TRIPS round trips for every bounded wait on an effect;
 * - requestMs + REQUEST_ROUND_TRIPS round trips for one request;
 * - the poll interval at least half a round trip: a poll (a request) cannot come back sooner than
 *   one, polling faster only queues requests behind each other on the path.
 *
 * Quiet windows ("nothing more arrives") follow from these and from the delays the run measures
 * (quietWindowMs), and are at least two round trips: a message the target sent just before the
 * window opened is half a round trip on its way, and the window must see it.
 */
export function networkTimeouts(
  floors: ProfileTimeouts,
  roundTripMs: number,
): ProfileTimeouts & { roundTripMs: number } {
  const rtt = Math.min(MAX_ROUND_TRIP_MS, Math.max(0, Math.round(roundTripMs)));
  return {
    eventuallyMs: floors.eventuallyMs + EFFECT_ROUND_TRIPS * rtt,
    pollIntervalMs: Math.max(floors.pollIntervalMs, Math.ceil(rtt / 2)),
    requestMs: floors.requestMs + REQUEST_ROUND_TRIPS * rtt,
    roundTripMs: rtt,
  };
}

/**
 * The environment variable naming the folder where a parallel run's workers share their measured
 * delays (src/engine/run.ts makes it for the run and removes it after).
 */
export const SHARED_DELAYS_VARIABLE = 'IOTC_SHARED_DELAYS';

/**
 * Delays the run has observed between asking for an effect and seeing it (an attribute update
 * delivered, a claim registered), by kind. Shared by every scenario of a worker: the more the run
 * has seen, the better its windows. With `sharedDir` (a parallel run) each worker also writes its
 * largest delays there, one small file per worker, whenever one grows, and a kind this worker has
 * not measured yet is taken from the others' files: a worker's first quiet window then comes from
 * what the run measured, not from a share of eventuallyMs (issue 26: at +50 ms each way, a fresh
 * worker's "no device exists" window of eventuallyMs / 4 was 1.8 s of a serial scenario). A worker's
 * own measurement still decides for it (a claim window must not widen by another worker's loaded
 * moment, src/faults/workers.ts). Plain files, not messages through cucumber's coordinator: its
 * workers have no channel to each other, and a file per worker needs no lock.
 */
export class DelayRecord {
  private readonly largest = new Map<string, number>();
  private readonly counts = new Map<string, number>();
  private readonly ownFile: string | undefined;

  /** `self` names this record's file in `sharedDir` (a worker's pid). */
  constructor(
    private readonly sharedDir?: string,
    self: string = String(process.pid),
  ) {
    this.ownFile = sharedDir && join(sharedDir, `${self}.json`);
  }

  record(kind: string, ms: number): void {
    const before = this.largest.get(kind);
    this.largest.set(kind, Math.max(before ?? 0, ms));
    this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1);
    if (this.ownFile && (before === undefined || ms > before)) this.publish(this.ownFile);
  }

  /**
   * The largest delay observed of this kind, or undefined when none was: this worker's own, else
   * the largest the run's other workers shared.
   */
  max(kind: string): number | undefined {
    return this.largest.get(kind) ?? this.sharedMax(kind);
  }

  /** What the run measured, for the report: `{kind: {max, count}}`. */
  summary(): Record<string, { maxMs: number; count: number }> {
    const out: Record<string, { maxMs: number; count: number }> = {};
    for (const [kind, maxMs] of this.largest)
      out[kind] = { maxMs: Math.round(maxMs), count: this.counts.get(kind) ?? 0 };
    return out;
  }

  private publish(file: string): void {
    try {
      // written whole then renamed: a reader never sees half a file
      writeFileSync(`${file}.tmp`, JSON.stringify(Object.fromEntries(this.largest)));
      renameSync(`${file}.tmp`, file);
    } catch {
      // the folder is gone (the run is ending): sharing is an optimisation, never a failure
    }
  }

  private sharedMax(kind: string): number | undefined {
    if (!this.sharedDir) return undefined;
    let names: string[];
    try {
      names = readdirSync(this.sharedDir);
    } catch {
      return undefined;
    }
    let found: number | undefined;
    for (const name of names) {
      const file = join(this.sharedDir, name);
      if (!name.endsWith('.json') || file === this.ownFile) continue;
      try {
        const theirs = (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>)[kind];
        if (typeof theirs === 'number') found = Math.max(found ?? 0, theirs);
      } catch {
        // a worker's file removed with the folder at the run's end: nothing to share
      }
    }
    return found;
  }
}

/**
 * The delays measured by this process (one cucumber worker), for every scenario it runs, shared
 * with the run's other workers when the run gave a folder for it.
 */
export const measuredDelays = new DelayRecord(process.env[SHARED_DELAYS_VARIABLE] || undefined);

/**
 * How long to watch for something that must not arrive, when a positive control cannot bracket it:
 * three times the largest delay of that kind the run has measured, at least `floorMs` (default:
 * twice the poll interval) and two round trips of the network (networkTimeouts), and at most
 * eventuallyMs. With nothing measured yet it is eventuallyMs / 4.
 */
export function quietWindowMs(
  kind: string,
  profile: TimingProfile,
  floorMs?: number,
  delays: DelayRecord = measuredDelays,
): number {
  const floor = Math.max(floorMs ?? 2 * profile.pollIntervalMs, 2 * (profile.roundTripMs ?? 0));
  const seen = delays.max(kind);
  const wanted = seen === undefined ? profile.eventuallyMs / 4 : 3 * seen;
  return Math.round(Math.min(profile.eventuallyMs, Math.max(floor, wanted)));
}

export interface EffectOutcome {
  /** How many times the action was taken (1 when its first try took effect). */
  tries: number;
  /** From the start of the try that took effect to its observation. */
  delayMs: number;
}

/**
 * An action repeated by `untilEffective` (steps/support/timing.ts) never showed its effect within
 * the bound: the scenario fails with the tries counted.
 */
export class NotEffective extends IotcError {
  readonly code = 'IOTC_NOT_EFFECTIVE';
}

/**
 * Repeats `act` until `observed` says its effect is there, the positive control of an asynchronous
 * platform: after each try it watches for the effect for a growing while (twice the poll interval,
 * doubling, at most a quarter of eventuallyMs), then tries again, until eventuallyMs is spent.
 * `observed(attempt)` is asked about the try with that number (1-based) and every earlier one: an
 * earlier try that takes effect late counts too. The delay of the try that took effect is recorded
 * under `kind`.
 *
 * Fails with NotEffective, naming `what`, when no try took effect in time; with Inconclusive
 * instead when the harness's own event loop stood still for more than half of that time in all
 * (StallLog.stalledBetween over the whole window: many short stalls of a loaded machine's time
 * slices add up, and a window the harness spent half asleep was not really given to the target; the
 * worst single stall alone let a loop starved in 40 ms slices FAIL).
 *
 * `maxWatchMs` caps the watch after a try (default a quarter of eventuallyMs): an effect that lasts
 * only a short while once it began (a claim registration of 400 ms) needs tries at least that often
 * to be seen at all.
 */
export async function untilEffective(
  what: string,
  kind: string,
  act: (attempt: number) => Promise<void>,
  observed: (attempt: number) => Promise<boolean> | boolean,
  profile: TimingProfile,
  options: { maxWatchMs?: number } = {},
): Promise<EffectOutcome> {
  const watch = new LagWatch();
  const stalls = new StallLog();
  const startedAt = Date.now();
  const started = performance.now();
  const deadline = started + profile.eventuallyMs;
  const starts: number[] = [];
  const maxWatchMs = Math.min(options.maxWatchMs ?? Infinity, profile.eventuallyMs / 4);
  let watchMs = Math.min(2 * profile.pollIntervalMs, maxWatchMs);
  try {
    for (let attempt = 1; ; attempt++) {
      starts.push(performance.now());
      await act(attempt);
      const tryEnds = Math.min(deadline, performance.now() + watchMs);
      for (;;) {
        if (await observed(attempt)) {
          const delayMs = performance.now() - starts[attempt - 1]!;
          measuredDelays.record(kind, delayMs);
          return { tries: attempt, delayMs };
        }
        const left = tryEnds - performance.now();
        if (left <= 0) break;
        await delay(Math.min(profile.pollIntervalMs / 2, left));
      }
      if (performance.now() >= deadline) break;
      watchMs = Math.min(2 * watchMs, maxWatchMs);
    }
    const elapsed = performance.now() - started;
    refuseIfStarvedInAll(watch, stalls.stalledBetween(startedAt), elapsed, `proving that ${what}`);
    throw new NotEffective(
      `${what}: no effect after ${starts.length} tries in ${Math.round(elapsed)} ms`,
    );
  } finally {
    watch.stop();
    stalls.stop();
  }
}

/**
 * untilEffective's starvation check: Inconclusive when the loop stood still for half of the
 * `elapsedMs` window or more, counting the total of its stalls over the window (`stalledMs`,
 * StallLog.stalledBetween) or its worst single one (the LagWatch), whichever is larger. Exported
 * for its unit test (test/steps/until-effective.test.ts).
 */
export function refuseIfStarvedInAll(
  watch: Pick<LagWatch, 'worstMs'>,
  stalledMs: number,
  elapsedMs: number,
  doing: string,
): void {
  const worst = watch.worstMs();
  const lost = Math.max(stalledMs, worst);
  if (lost > elapsedMs / 2)
    throw new Inconclusive(
      `${HARNESS_STARVED} ${Math.round(lost)} ms in all (worst single stall ${Math.round(worst)} ms) over the ${Math.round(elapsedMs)} ms of ${doing}, more than the ${Math.round(elapsedMs / 2)} ms margin the verdict needs (a busy machine)`,
    );
}

/**
 * Watches the harness's own event loop over a window a verdict rests on. The histogram's resolution
 * is 10 ms; the worst stall it saw tells whether a timer could have fired late by that much.
 */
export class LagWatch {
  private readonly histogram: IntervalHistogram = monitorEventLoopDelay({ resolution: 10 });

  constructor() {
    this.histogram.enable();
  }

  /** The longest the event loop was blocked since the watch began, in ms. */
  worstMs(): number {
    return this.histogram.max / 1e6;
  }

  /**
   * Throws Inconclusive when the loop was stalled longer than `marginMs`: a window of that size was
   * not what the verdict needed.
   */
  refuseIfStarved(marginMs: number, doing: string): void {
    const worst = this.worstMs();
    if (worst > marginMs)
      throw new Inconclusive(
        `${HARNESS_STARVED} ${Math.round(worst)} ms while ${doing}, more than the ${Math.round(marginMs)} ms margin the verdict needs (a busy machine)`,
      );
  }

  stop(): void {
    this.histogram.disable();
  }
}

/** How watchProgress ended: done, nothing new for quietMs, or capMs spent. */
export type ProgressEnd = 'done' | 'quiet' | 'cap';

/**
 * Watches a count of what arrived (`progress()`) until `done()` holds, it has not grown for
 * `quietMs`, or `capMs` has passed in all; returns how it ended and the count. The one loop behind
 * the two waits below.
 */
async function watchProgress(
  progress: () => number,
  done: () => boolean,
  quietMs: number,
  capMs: number,
  pollMs: number,
): Promise<{ end: ProgressEnd; count: number; elapsedMs: number }> {
  const started = performance.now();
  let last = progress();
  let lastChange = started;
  for (;;) {
    const now = performance.now();
    const count = progress();
    if (count !== last) {
      last = count;
      lastChange = now;
    }
    const elapsedMs = now - started;
    if (done()) return { end: 'done', count, elapsedMs };
    if (now - lastChange >= quietMs) return { end: 'quiet', count, elapsedMs };
    if (elapsedMs >= capMs) return { end: 'cap', count, elapsedMs };
    await delay(pollMs);
  }
}

/**
 * Waits until `done()` while the work it waits for is visibly going on: it fails only when
 * `progress()` (a count that grows as the work goes on, say the updates read) has not grown for
 * eventuallyMs, or when `capMs` has passed in all. For effects whose total time depends on their
 * size and the target's speed (a platform writing 24 MB of queued updates), where a fixed bound
 * would FAIL a slow but working target.
 */
export async function eventuallyWhileProgressing(
  what: string,
  done: () => boolean,
  progress: () => number,
  profile: TimingProfile,
  capMs: number,
): Promise<void> {
  const { end, count, elapsedMs } = await watchProgress(
    progress,
    done,
    profile.eventuallyMs,
    capMs,
    profile.pollIntervalMs,
  );
  if (end === 'quiet')
    throw new NotEffective(
      `${what}: no progress for ${profile.eventuallyMs} ms (at ${count}, after ${Math.round(elapsedMs)} ms)`,
    );
  if (end === 'cap')
    throw new NotEffective(`${what}: still going after ${Math.round(capMs)} ms (at ${count})`);
}

/**
 * Waits until `progress()` (a count of what arrived) has stayed the same for `quietMs`, at most
 * `capMs` in all, and returns it: on a platform that delivers late and reordered, a marker that
 * arrived does not mean that everything sent before it has, so a "some were dropped" verdict waits
 * for the stragglers first.
 */
export async function settledCount(
  progress: () => number,
  quietMs: number,
  capMs: number,
  pollMs: number,
): Promise<number> {
  return (await watchProgress(progress, () => false, quietMs, capMs, pollMs)).count;
}

/**
 * The harness's event-loop stalls with the wall-clock time they ended (Date.now(), the clock the
 * simulators stamp requests with), so that a verdict about what happened in earlier steps weighs
 * the stalls of its own window only, not a garbage collection before it. A 10 ms interval timer
 * notes how late it fired when that is 5 ms or more.
 */
const STALL_PERIOD_MS = 10;

export class StallLog {
  private readonly stalls: Array<{ endedAt: number; ms: number }> = [];
  private expected = performance.now() + STALL_PERIOD_MS;
  private readonly timer: NodeJS.Timeout;
  private stopped = false;

  constructor() {
    this.timer = setInterval(() => {
      const now = performance.now();
      const late = now - this.expected;
      if (late >= 5) this.stalls.push({ endedAt: Date.now(), ms: late });
      this.expected = now + STALL_PERIOD_MS;
    }, STALL_PERIOD_MS);
    this.timer.unref();
  }

  /**
   * The longest stall that overlapped [fromMs, toMs] (Date.now() values; toMs defaults to now), in
   * ms; 0 if none.
   */
  worstBetween(fromMs: number, toMs = Date.now()): number {
    let worst = 0;
    for (const { endedAt, ms } of this.stalls)
      if (endedAt >= fromMs && endedAt - ms <= toMs) worst = Math.max(worst, ms);
    // a stall still going on: the timer has not fired since it was due (none once the log is
    // stopped); it counts only for a window that reaches into it: a window that ended before it
    // began is not explained by it (a verdict judged at the end of a session on a loaded machine
    // was INCONCLUSIVE by the judging's own time slice)
    const ongoing = this.stopped ? 0 : performance.now() - this.expected;
    return ongoing > 0 && toMs >= Date.now() - ongoing ? Math.max(worst, ongoing) : worst;
  }

  /**
   * How long, in all, the loop stood still within [fromMs, toMs] (the parts of its stalls inside
   * the window, the one going on included), in ms: what a window that a verdict needed a number of
   * exchanges to fit in lost to starvation, when many short stalls (a loaded machine's time slices)
   * add up to more than the worst of them.
   */
  stalledBetween(fromMs: number, toMs = Date.now()): number {
    let total = 0;
    for (const { endedAt, ms } of this.stalls) {
      const overlap = Math.min(endedAt, toMs) - Math.max(endedAt - ms, fromMs);
      if (overlap > 0) total += overlap;
    }
    const ongoing = this.stopped ? 0 : performance.now() - this.expected;
    return total + (ongoing > 0 && toMs >= Date.now() ? ongoing : 0);
  }

  stop(): void {
    clearInterval(this.timer);
    this.stopped = true;
  }
}

/**
 * How long the scenario's processes may have stood still while a timed verdict was being made: the
 * harness's own event-loop lag (the worst stall of a LagWatch over the scenario; for an embedded
 * target it is the target's process too) and, for a target in its own process, the round trip of a
 * request to it measured in the scenario.
 */
export interface Stall {
  harnessMs: number;
  targetRoundTripMs?: number;
}

/** The most a timer of the scenario could have fired late by, or an answer been read late by. */
export function stallMs(stall: Stall): number {
  return stall.harnessMs + (stall.targetRoundTripMs ?? 0);
}

/** The stall as the evidence shows it: both parts, rounded. */
export function describeStall(stall: Stall): string {
  const target =
    stall.targetRoundTripMs === undefined
      ? ''
      : `, the target's round trip ${Math.round(stall.targetRoundTripMs)} ms`;
  return `harness event-loop lag ${Math.round(stall.harnessMs)} ms${target}`;
}

/**
 * A timed verdict whose observation did not fit (an extra attempt, a missing one, two attempts too
 * close): throws Inconclusive when the measured stall is at least `marginMs`, the slack the
 * observation had before it would have gone wrong (a timeout less the time the answer took), so
 * that the harness starving itself, or the target's process being starved on a busy machine, is
 * never a FAIL; returns otherwise, and the caller fails with the difference.
 */
export function refuseIfStallExplains(stall: Stall, marginMs: number, doing: string): void {
  if (stallMs(stall) >= marginMs)
    throw new Inconclusive(
      `${HARNESS_STARVED} or the target's process was starved while ${doing}: ${describeStall(stall)}, not less than the ${Math.round(marginMs)} ms margin the verdict needs (a busy machine)`,
    );
}
