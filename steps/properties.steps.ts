/**
 * Property-based payload scenarios (features/http-device-api/payload-properties.feature).
 *
 * Each step runs one fast-check property: payloads come from schemas/arbitrary.ts (derived from the
 * JSON Schemas), every case posts through the HTTP device driver as a fresh device and reads back
 * through the admin client, and the device is deleted after the case.
 *
 * Replaying a failure: the step prints `fast-check seed=S path=P` (also attached to the scenario as
 * `{"fastCheck":{"seed":S,"path":"P"}}`, which reports/conformance.json lists under run.seeds) and
 * the error ends with a replay line. Run the same scenario with those values:
 *     FC_SEED=S FC_PATH="P" npx iotc run --tags @HTTP-TEL-02
 * fast-check then starts at the shrunk counterexample and stops at the first failure. FC_SEED alone
 * reruns the whole sequence; FC_RUNS sets the number of cases per property (default 25);
 * FC_SHRINK_MS bounds the shrinking of a failing case (default 10000 ms, at most 25000; 0 reports
 * the first failing case unshrunk, e.g. for the kill matrix).
 */
import { Then } from './support/cucumber';
import type { IotcWorld } from './world';
import type { AdminClient } from '../src/admin-client';
import fc from 'fast-check';
import { casesOf, checkOverlapped, type OverlapOutcome } from './support/property-overlap';
import {
  malformedClientAttributes,
  payloadPart,
  type PayloadPart,
  malformedTelemetry,
  validClientAttributes,
  validTelemetry,
  type ExpectedEntry,
  type MalformedPayload,
  type TelemetryForm,
  type ValidPayload,
} from '../schemas/arbitrary';
import { describeTypedValue, typedValuesEqual, type TypedValue } from '../lib/kv/values';

const DEFAULT_RUNS = 25;
/**
 * A server-assigned timestamp must fall within the request, give or take this much clock
 * difference.
 */
const SERVER_CLOCK_TOLERANCE_MS = 10 * 60_000;
/** Upper bound of finding a failing case, so that a slow target cannot hold the run forever. */
const PROPERTY_TIME_LIMIT_MS = 120_000;
/**
 * Upper bound of shrinking a failing case (FC_SHRINK_MS; 0 = report the first failing case as
 * found). Every failing attempt waits the profile's eventuallyMs before it fails, so unbounded
 * shrinking against a platform that fails every case took minutes per property (a planted fault of
 * one value type ran past 300 s over the properties tagged with it).
 */
const DEFAULT_SHRINK_TIME_LIMIT_MS = 10_000;
const MAX_SHRINK_TIME_LIMIT_MS = 25_000; // with PROPERTY_TIME_LIMIT_MS, within every step timeout (150 s)
const STEP_TIMEOUT_MS = PROPERTY_TIME_LIMIT_MS + MAX_SHRINK_TIME_LIMIT_MS + 30_000;

export type Resource = 'telemetry' | 'attributes';

// ---------------------------------------------------------------------------------------------------------------
// What the properties need from the world, the HTTP device driver and the admin client. Kept as one
// narrow port so that the property code below does not depend on their shapes; `portsOf` is the
// only place that knows them.

/** One stored entry as read back through the admin API (telemetry carries its ts). */
export interface StoredEntry {
  value: TypedValue;
  ts?: number;
}

export interface PropertyDevice {
  /**
   * POST /api/v1/{token}/{resource} with this exact body (Content-Type: application/json) through
   * the driver.
   */
  post(resource: Resource, body: string): Promise<{ status: number }>;
  /**
   * Latest telemetry / client attributes of these keys, typed, through the admin client. Missing
   * keys are absent.
   */
  readBack(resource: Resource, keys: string[]): Promise<Map<string, StoredEntry>>;
  /** Every telemetry key / client-attribute key the device holds, through the admin client. */
  storedKeys(resource: Resource): Promise<string[]>;
}

export interface PropertyPorts {
  /**
   * Creates a device (run prefix, cleanup journal), runs `use`, deletes the device whatever
   * happened.
   */
  withFreshDevice(label: string, use: (device: PropertyDevice) => Promise<void>): Promise<void>;
  /**
   * Retries `probe` until it resolves, within the target's timeouts (steps/support/eventually.ts).
   */
  eventually(probe: () => Promise<void>): Promise<void>;
  /** The tag expression that selects the current scenario, for the replay line. */
  scenarioTags: string;
  replayCommand: string;
}

/** The world, the HTTP device driver and the admin client seen through PropertyPorts. */
function portsOf(world: PropertyWorld): PropertyPorts {
  const { admin } = world.run;
  return {
    async withFreshDevice(label, use) {
      const name = world.fresh(label);
      const { record, token } = await world.newDevice(name);
      try {
        const driver = world.newDriver(token);
        await use({
          post: (resource, body) =>
            resource === 'telemetry'
              ? driver.postTelemetry({ raw: body })
              : driver.postAttributes({ raw: body }),
          ...storedDataOf(admin, record.id),
        });
      } finally {
        await world.removeNow('device', name);
      }
    },
    eventually: (probe) => world.eventually(probe),
    scenarioTags: world.scenarioTags,
    replayCommand: world.replayCommand,
  };
}

/**
 * What a device holds, read through the admin client: typed latest telemetry / client attributes,
 * and their keys.
 */
export function storedDataOf(
  admin: AdminClient,
  deviceId: string,
): Pick<PropertyDevice, 'readBack' | 'storedKeys'> {
  return {
    async readBack(resource, keys) {
      const out = new Map<string, StoredEntry>();
      if (resource === 'telemetry') {
        for (const [key, stored] of await admin.latestTelemetry(deviceId, keys))
          if (stored.value) out.set(key, { value: stored.value, ts: stored.ts });
      } else {
        for (const [key, stored] of await admin.attributes(deviceId, 'CLIENT_SCOPE', keys))
          if (stored.value) out.set(key, { value: stored.value });
      }
      return out;
    },
    async storedKeys(resource) {
      return resource === 'telemetry'
        ? admin.telemetryKeys(deviceId)
        : [...(await admin.attributes(deviceId, 'CLIENT_SCOPE')).keys()];
    },
  };
}

/** cucumber's World plus what steps/world.ts adds. */
type PropertyWorld = IotcWorld;

function shrinkTimeFromEnvironment(): number {
  const text = process.env.FC_SHRINK_MS;
  const limit = Number(text);
  if (!text || !Number.isInteger(limit) || limit < 0) return DEFAULT_SHRINK_TIME_LIMIT_MS;
  return Math.min(limit, MAX_SHRINK_TIME_LIMIT_MS);
}

function runsFromEnvironment(defaultRuns: number): number {
  const runs = Number(process.env.FC_RUNS);
  return Number.isInteger(runs) && runs > 0 ? runs : defaultRuns;
}

/**
 * Cases of one property checked at once against a target across a network (measured round trip at
 * least CONCURRENT_ROUND_TRIP_MS): each case crosses the network a dozen times one exchange after
 * another (create the device, post, read back until stored, delete), so at +50 ms each way a
 * property of 9 cases took 22 s where loopback took 1.3 to 2.2 s, and the run's critical path was
 * its longest properties. Every case works on devices of its own (fresh names, its own HTTP driver;
 * the gateway's cases share its connection, whose PUBACKs are matched by packet id), so they may
 * overlap. On loopback (and the embedded target) the cases stay one after another, as before.
 */
export const CASES_AT_ONCE = 4;
/**
 * The round trip from which a property's cases overlap: above loopback on a busy machine, below any
 * real network's path across machines.
 */
export const CONCURRENT_ROUND_TRIP_MS = 10;

/** How many cases of a property run at once against this world's target (1: one after another). */
function casesAtOnce(world: PropertyWorld): number {
  const roundTripMs = world.run.target.timeouts.roundTripMs ?? 0;
  return roundTripMs >= CONCURRENT_ROUND_TRIP_MS ? CASES_AT_ONCE : 1;
}

/**
 * A seed as fast-check draws its own when none is given (QualifiedParameters: Date.now() ^ a random
 * 32-bit word).
 */
function freshSeed(): number {
  return Date.now() ^ (Math.random() * 0x100000000);
}

/**
 * Runs `check` for every generated case, records the seed in the report and fails the step with
 * fast-check's report (counterexample, shrinks, the error) plus the replay line.
 *
 * Against a target across a network (casesAtOnce) the cases fast-check would generate for the seed
 * are first checked CASES_AT_ONCE at a time (checkOverlapped). When all pass, the property passed
 * on exactly the cases a serial run checks. When one fails, fast-check itself replays the property
 * one case after another from the lowest failing case (`path` = its index) and shrinks as a serial
 * run does, so the counterexample, its path and the replay line are those of a serial run. A
 * failure that a serial replay does not repeat (it failed only while other cases ran) still fails
 * the step, with its own error as the cause, never a PASS.
 */
export async function runProperty<T>(
  world: PropertyWorld,
  arbitrary: fc.Arbitrary<T>,
  check: (value: T) => Promise<void>,
  defaultRuns = DEFAULT_RUNS,
): Promise<void> {
  const seedText = process.env.FC_SEED;
  const path = process.env.FC_PATH || undefined;
  const numRuns = runsFromEnvironment(defaultRuns);
  const seed = seedText ? Number(seedText) : freshSeed();
  const property = fc.asyncProperty(arbitrary, check);
  const options = { numRuns, includeErrorInReport: true, markInterruptAsFailure: true };
  const started = performance.now();
  const atOnce = path === undefined ? casesAtOnce(world) : 1;
  let overlapped: OverlapOutcome | undefined;
  if (atOnce > 1) {
    const values = await casesOf(arbitrary, seed, numRuns);
    overlapped = await checkOverlapped(values, check, atOnce, PROPERTY_TIME_LIMIT_MS);
    if (overlapped.kind !== 'failed') {
      const interrupted = overlapped.kind === 'interrupted';
      world.log(
        `fast-check seed=${seed} runs=${overlapped.cases} (${atOnce} at once)${interrupted ? ' (interrupted)' : ''}`,
      );
      await world.attach(
        JSON.stringify({ fastCheck: { seed, numRuns, failed: interrupted, atOnce } }),
        'application/json',
      );
      if (interrupted)
        throw new Error(
          `Property interrupted after ${overlapped.cases} of ${numRuns} tests (time limit ${PROPERTY_TIME_LIMIT_MS} ms, ${atOnce} at once)\nReplay: FC_SEED=${seed} ${world.replayCommand}`,
        );
      return;
    }
  }
  // first the cases until one fails (from the one an overlapped run found failing), then shrinking
  // from that case for a bounded time (the smallest failing case found by then is the one reported)
  const from = overlapped?.kind === 'failed' ? overlapped.index : undefined;
  let out = await fc.check(property, {
    ...options,
    seed,
    path: from === undefined ? path : String(from),
    numRuns: from === undefined ? numRuns : numRuns - from,
    endOnFailure: true,
    interruptAfterTimeLimit: Math.max(1, PROPERTY_TIME_LIMIT_MS - (performance.now() - started)),
  });
  const shrinkMs = shrinkTimeFromEnvironment();
  if (out.failed && out.counterexamplePath && path === undefined && shrinkMs > 0) {
    const shrunk = await fc.check(property, {
      ...options,
      seed: out.seed,
      path: out.counterexamplePath,
      interruptAfterTimeLimit: shrinkMs,
    });
    if (shrunk.failed && shrunk.counterexample !== null) out = shrunk;
  }
  const failedPath = out.failed ? (out.counterexamplePath ?? undefined) : undefined;
  world.log(
    `fast-check seed=${out.seed}${failedPath ? ` path=${failedPath}` : ''} runs=${out.numRuns}${out.interrupted ? ' (interrupted)' : ''}${from === undefined ? '' : ` (replayed one at a time from case ${from}, which failed with ${atOnce} at once)`}`,
  );
  await world.attach(
    JSON.stringify({
      fastCheck: {
        seed: out.seed,
        path: failedPath,
        numRuns,
        failed: out.failed || from !== undefined,
      },
    }),
    'application/json',
  );
  if (out.failed) {
    const replay = `FC_SEED=${out.seed}${failedPath ? ` FC_PATH="${failedPath}"` : ''}`;
    // the case's own error stays the cause: a transport error in it (a reset) is the network's
    // (transport.ts)
    throw new Error(`${fc.defaultReportMessage(out)}\nReplay: ${replay} ${world.replayCommand}`, {
      cause: out.errorInstance,
    });
  }
  if (overlapped?.kind === 'failed') {
    // the serial replay passed: the case failed only while others ran beside it; still the target's
    // answer
    const error = overlapped.error;
    throw new Error(
      `Property failed at case ${overlapped.index} with ${atOnce} cases at once (a serial replay from it passed): ${(error as Error)?.message ?? String(error)}\nReplay: FC_SEED=${seed} FC_PATH="${overlapped.index}" ${world.replayCommand}`,
      { cause: error },
    );
  }
}

// ---------------------------------------------------------------------------------------------------------------
// One case

function describeEntry(entry: ExpectedEntry): string {
  return `${JSON.stringify(entry.key)} = ${describeTypedValue(entry.value)}${entry.ts === undefined ? '' : ` at ts ${entry.ts}`}`;
}

/**
 * Posts a valid payload as a fresh device and proves every entry is stored with its value, type and
 * timestamp.
 */
export async function postsAndStoresExactly(
  ports: PropertyPorts,
  resource: Resource,
  payload: ValidPayload,
): Promise<void> {
  await ports.withFreshDevice('fuzz', async (device) => {
    const sentAt = Date.now();
    const response = await device.post(resource, payload.body);
    const answeredAt = Date.now();
    if (response.status !== 200)
      throw new Error(
        `POST ${resource} answered ${response.status}, expected 200; body ${payload.body}`,
      );
    if (payload.expected.length === 0) return;
    const keys = payload.expected.map((entry) => entry.key);
    await ports.eventually(async () =>
      checkStored(resource, payload.expected, await device.readBack(resource, keys), {
        sentAt,
        answeredAt,
      }),
    );
  });
}

/**
 * Every expected entry is among the stored ones with its value and type; telemetry also with its
 * timestamp (the device's ts, or a server time within the request window).
 */
export function checkStored(
  resource: Resource,
  expected: readonly ExpectedEntry[],
  stored: Map<string, StoredEntry>,
  window: { sentAt: number; answeredAt: number },
): void {
  for (const entry of expected) {
    const actual = stored.get(entry.key);
    if (!actual) throw new Error(`${describeEntry(entry)} was not stored`);
    if (!typedValuesEqual(actual.value, entry.value))
      throw new Error(`${describeEntry(entry)} read back as ${describeTypedValue(actual.value)}`);
    if (resource === 'telemetry')
      checkTimestamp(entry, actual.ts, window.sentAt, window.answeredAt);
  }
}

function checkTimestamp(
  expected: ExpectedEntry,
  ts: number | undefined,
  sentAt: number,
  answeredAt: number,
): void {
  if (expected.ts !== undefined) {
    if (ts !== expected.ts) throw new Error(`${describeEntry(expected)} read back with ts ${ts}`);
    return;
  }
  if (
    ts === undefined ||
    ts < sentAt - SERVER_CLOCK_TOLERANCE_MS ||
    ts > answeredAt + SERVER_CLOCK_TOLERANCE_MS
  ) {
    throw new Error(
      `${describeEntry(expected)} read back with ts ${ts}, not a server time of the request (${sentAt}..${answeredAt})`,
    );
  }
}

export const SENTINEL_KEY = 'iotc.sentinel';

/**
 * Once the sentinel (sent after the rejected payload) is stored, nothing else may be: the rejected
 * one stored nothing.
 */
export function checkOnlySentinel(
  storedKeys: readonly string[],
  rejected: MalformedPayload,
  device = 'the device',
): void {
  if (!storedKeys.includes(SENTINEL_KEY))
    throw new Error(`the sentinel was not stored yet for ${device}`);
  const others = storedKeys.filter((key) => key !== SENTINEL_KEY);
  if (others.length)
    throw new Error(
      `${rejected.defect}: the rejected body ${JSON.stringify(rejected.body)} stored ${others.map((key) => JSON.stringify(key)).join(', ')} for ${device}`,
    );
}

/**
 * Posts a malformed payload as a fresh device: the answer must be 400. Then a valid sentinel
 * follows on the same resource; once the sentinel is readable, the device must hold nothing but the
 * sentinel, which proves the malformed payload stored nothing (rather than "not yet").
 */
export async function rejectsAndStoresNothing(
  ports: PropertyPorts,
  resource: Resource,
  payload: MalformedPayload,
): Promise<void> {
  await ports.withFreshDevice('fuzz', async (device) => {
    const response = await device.post(resource, payload.body);
    if (response.status !== 400)
      throw new Error(
        `${payload.defect}: POST ${resource} answered ${response.status}, expected 400; body ${JSON.stringify(payload.body)}`,
      );
    const sentinel = await device.post(resource, JSON.stringify({ [SENTINEL_KEY]: true }));
    if (sentinel.status !== 200)
      throw new Error(`the sentinel POST ${resource} answered ${sentinel.status}`);
    await ports.eventually(async () =>
      checkOnlySentinel(await device.storedKeys(resource), payload),
    );
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Steps

/** Runs a property with the world's ports. */
async function property<T>(
  world: PropertyWorld,
  arbitrary: fc.Arbitrary<T>,
  check: (ports: PropertyPorts, value: T) => Promise<void>,
  defaultRuns = DEFAULT_RUNS,
): Promise<void> {
  const ports = portsOf(world);
  await runProperty(world, arbitrary, (value) => check(ports, value), defaultRuns);
}

/**
 * The cases of one part of the valid payloads: the three parts together draw about what one unsplit
 * property drew (each part narrows the kinds of value it draws, so each kind gets about as many
 * cases as before), and a run is not three times longer for the split. FC_RUNS still sets every
 * property's count.
 */
const PART_RUNS = Math.ceil(DEFAULT_RUNS / 3);

function runsOf(phrase: string | null): number {
  return partOf(phrase) === undefined ? DEFAULT_RUNS : PART_RUNS;
}

/**
 * Which valid payloads a step draws: all of them (no phrase), or one of three parts that split them
 * by what they hold (PayloadPart, schemas/arbitrary), so that a target declaring a deviation of one
 * kind of value still runs the scenarios of the others: `with booleans and longs only` (and, in the
 * timestamped form, a ts before the year 10000), `with a double or JSON value and no string value`
 * (or a ts from the year 10000 on), and `with a string value`. The scenario of each part carries
 * the requirements it checks.
 */
const PART_PHRASES = {
  'with booleans and longs only': 'booleans-and-longs',
  'with booleans and longs only and a ts before the year 10000': 'booleans-and-longs',
  'with a double or JSON value and no string value': 'doubles-or-json',
  'with a double, a JSON value or a ts from the year 10000 on, and no string value':
    'doubles-or-json',
  'with a string value': 'strings',
} as const satisfies Record<string, PayloadPart>;
const PART_PATTERN = Object.keys(PART_PHRASES)
  .sort((a, b) => b.length - a.length)
  .map((phrase) => phrase.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
  .join('|');

/** The part a step's phrase names; cucumber gives an optional group that did not match as null. */
function partOf(phrase: string | null): PayloadPart | undefined {
  return phrase === null ? undefined : PART_PHRASES[phrase as keyof typeof PART_PHRASES];
}

Then(
  new RegExp(
    `^generated valid telemetry in the (object|array|timestamped) form(?: (${PART_PATTERN}))? is accepted and every key reads back with its value and type$`,
  ),
  { timeout: STEP_TIMEOUT_MS },
  async function (this: PropertyWorld, form: TelemetryForm, phrase: string | null) {
    const arbitrary = payloadPart((values) => validTelemetry(form, values), partOf(phrase));
    return property(
      this,
      arbitrary,
      (ports, payload) => postsAndStoresExactly(ports, 'telemetry', payload),
      runsOf(phrase),
    );
  },
);

Then(
  new RegExp(
    `^generated valid client attributes(?: (${PART_PATTERN}))? are accepted and every key reads back with its value and type$`,
  ),
  { timeout: STEP_TIMEOUT_MS },
  async function (this: PropertyWorld, phrase: string | null) {
    const arbitrary = payloadPart((values) => validClientAttributes(values), partOf(phrase));
    return property(
      this,
      arbitrary,
      (ports, payload) => postsAndStoresExactly(ports, 'attributes', payload),
      runsOf(phrase),
    );
  },
);

Then(
  'generated malformed telemetry is answered 400 and the device holds no telemetry afterwards',
  { timeout: STEP_TIMEOUT_MS },
  async function (this: PropertyWorld) {
    return property(this, malformedTelemetry(), (ports, payload) =>
      rejectsAndStoresNothing(ports, 'telemetry', payload),
    );
  },
);

Then(
  'generated malformed client attributes are answered 400 and the device holds no client attributes afterwards',
  { timeout: STEP_TIMEOUT_MS },
  async function (this: PropertyWorld) {
    return property(this, malformedClientAttributes(), (ports, payload) =>
      rejectsAndStoresNothing(ports, 'attributes', payload),
    );
  },
);
