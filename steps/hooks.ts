/**
 * Run and scenario lifecycle: open the target (IOTC_TARGET: `embedded` or a profile path) and log
 * in once; skip scenarios whose capability the target lacks (reported NOT APPLICABLE); delete what
 * each scenario created.
 */
import {
  After,
  AfterAll,
  Before,
  BeforeAll,
  Status,
  setDefaultTimeout,
  setDefinitionFunctionWrapper,
  setParallelCanAssign,
  type ITestCaseHookParameter,
} from './support/cucumber';
import { loadProfile, openTarget, type Target } from '../src/target';
import { onceMoreIfReset } from '../src/target/preflight';
import { AdminApiError, AdminClient } from '../src/admin-client';
import { createDeviceDispatcher } from '../simulators/device/http-device';
import { newRunId, run, setRun } from './support/run';
import { scenarioFinished, scenarioStarting } from '../src/engine/interruption';
import {
  CleanupJournal,
  cleanupFromJournal,
  journalPath,
  stopMarked,
  restoreSettingsFromJournal,
  unrestoredSettings,
} from '../src/target/journal';
import type { IotcWorld } from './world';
import { recordExchange, recordInto } from './support/evidence';
import { EXCHANGES_MEDIA_TYPE } from '../src/report/exchanges';
import { HARNESS_MEDIA_TYPE, RETRY_DECLINED } from '../src/report/verdicts';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import {
  HARNESS_STARVED,
  INCONCLUSIVE_PREFIX,
  Inconclusive,
  boundBelowHangGuard,
  NETWORK_HEADROOM_MS,
  measuredDelays,
  networkTimeouts,
  NotEffective,
  type TimingProfile,
  untilEffective,
} from './support/timing';
import { type InterfaceRoundTrip, measureRoundTrips, mergeRoundTrips } from './support/network';
import { overlapRule } from '../src/engine/exclusive';
import { cleanupBatches } from './support/cleanup-batches';
import {
  NETWORK_FAILED,
  brokenConnectionInconclusive,
  clearBrokenConnections,
  networkInconclusive,
  noteBrokenConnection,
  transportFailure,
} from './support/transport';
import { MqttConnection } from '../simulators/device/mqtt-connection';

// a reset MQTT connection closes without an answer of the target: its scenario must know
// (transport.ts)
MqttConnection.onSocketError = noteBrokenConnection;

/**
 * A step's hang guard, from the target's own timeouts: one request may take requestMs and a bounded
 * wait eventuallyMs, so a step that makes a slow request (ThingsBoard builds its 1 MB OpenAPI
 * description on the first call: more than 30 s on a loaded machine) ends by its own bound, not by
 * cucumber's. Read at load time, since cucumber fixes its default before BeforeAll; a profile that
 * does not load fails in BeforeAll with its reason.
 */
function stepTimeoutMs(): number {
  try {
    const { timeouts, embedded } = loadProfile(process.env.IOTC_TARGET || 'embedded');
    // a remote target's waits grow with the round trip measured in BeforeAll (timing.ts
    // networkTimeouts), known only then: the guard allows for the most they can grow
    const network = embedded ? 0 : NETWORK_HEADROOM_MS;
    return Math.max(
      30_000,
      (timeouts?.requestMs ?? 0) + (timeouts?.eventuallyMs ?? 0) + network + 10_000,
    );
  } catch {
    return 30_000;
  }
}
const STEP_TIMEOUT_MS = stepTimeoutMs();
setDefaultTimeout(STEP_TIMEOUT_MS);

// the workers of a parallel run share a remote target's tenant: scenarios that change what others
// see do not overlap them (src/engine/exclusive.ts; on an embedded target every worker has a
// reference of its own)
if (!targetIsEmbedded()) setParallelCanAssign(overlapRule());

/**
 * Whether the run's target profile is an embedded one; false when it does not load (BeforeAll says
 * why).
 */
function targetIsEmbedded(): boolean {
  try {
    return loadProfile(process.env.IOTC_TARGET || 'embedded').embedded === true;
  } catch {
    return false;
  }
}

/**
 * A step (or hook) that fails through a transport error (a reset, a refused connect, a TLS failure:
 * no answer of the target) fails INCONCLUSIVE, naming it. cucumber.js retries every failed scenario
 * once; the Before hook below lets the retry run only when the first attempt failed that way, so
 * the second attempt, on fresh connections, decides: a second transport error leaves the
 * requirement INCONCLUSIVE, an answer of the target can FAIL it.
 */
setDefinitionFunctionWrapper(
  (code: (...args: unknown[]) => unknown) =>
    function (this: unknown, ...args: unknown[]) {
      const convert = (error: unknown): never => {
        if ((this as Partial<IotcWorld> | undefined)?.transportIsAnswer) throw error;
        throw (
          networkInconclusive(error, 'talking to the target') ??
          brokenConnectionInconclusive(error, 'talking to the target') ??
          error
        );
      };
      try {
        const result = code.apply(this, args);
        if (!(result instanceof Promise)) return result;
        // a step that hangs after the network broke one of its connections (a subscribe or an
        // update that can no longer come) ends just before cucumber's timeout, INCONCLUSIVE naming
        // the reset, not FAIL `function timed out`; without a noted transport error it runs on into
        // cucumber's timeout (a hang of the target)
        const late = () =>
          (this as Partial<IotcWorld> | undefined)?.transportIsAnswer
            ? undefined
            : brokenConnectionInconclusive(
                new Error(`the step had not ended within its hang guard (${STEP_TIMEOUT_MS} ms)`),
                'talking to the target',
              );
        return boundBelowHangGuard(result, STEP_TIMEOUT_MS, late).catch(convert);
      } catch (error) {
        return convert(error);
      }
    },
);

/**
 * The opening of the message of a scenario that failed through the network (the retry is for those
 * only).
 */
const NETWORK_FAILURE = `${INCONCLUSIVE_PREFIX} ${NETWORK_FAILED}`;
/**
 * The opening of the message of a scenario the harness's starvation left undecided
 * (steps/support/timing.ts).
 */
const STARVED = `${INCONCLUSIVE_PREFIX} ${HARNESS_STARVED}`;

/** Per scenario (pickle) of this worker: how its attempt that will be retried failed. */
const retryable = new Map<string, { network: boolean; message: string }>();

/**
 * The harness's own event-loop lag over the whole run of this worker, reported with every
 * scenario's evidence.
 */
const runLag = monitorEventLoopDelay({ resolution: 10 });

/**
 * The network to a remote target as this worker measured it at its start, and the timeouts derived
 * from it: in every scenario's harness facts, so the report prints them (run.harness[].network).
 */
let network:
  | {
      roundTripMs: number;
      interfaces: Record<string, InterfaceRoundTrip>;
      timeouts: { eventuallyMs: number; pollIntervalMs: number; requestMs: number };
    }
  | undefined;

/** The profile's own timeouts: the floors networkTimeouts adds the round trip to. */
let profileTimeouts:
  | { eventuallyMs: number; pollIntervalMs: number; requestMs: number }
  | undefined;

/**
 * How many scenarios of a worker take one more sample of each interface afterwards. The first
 * samples are taken while the workers of a parallel run all start on a loaded machine, and a busy
 * CPU only lengthens a round trip (loopback measured 200 to 400 ms then): later samples bring the
 * figure down to the network's.
 */
const REFINING_SCENARIOS = 10;
let refinedAfter = 0;
/** A sample under way (refineNetwork), merged at the end of a later scenario once `done`. */
interface Sample {
  ended: Promise<void>;
  done: boolean;
  measured?: Record<string, InterfaceRoundTrip>;
}
let refining: Sample | undefined;

/** Derives the target's timeouts from the profile's and the smallest round trip measured so far. */
function applyNetwork(target: Target): void {
  if (!network || !profileTimeouts) return;
  network.roundTripMs = Math.max(
    0,
    ...Object.values(network.interfaces).map((measured) => measured.rttMs ?? 0),
  );
  target.timeouts = networkTimeouts(profileTimeouts, network.roundTripMs);
  const { eventuallyMs, pollIntervalMs, requestMs } = target.timeouts;
  network.timeouts = { eventuallyMs, pollIntervalMs, requestMs };
}

/**
 * One more sample of each interface, for the first REFINING_SCENARIOS scenarios of the worker: taken
 * while the next scenario runs, and merged (the timeouts derived again) at the end of a later one,
 * so that no scenario sees its timeouts change under it. A sample is a few round trips (a connect,
 * a warm-up, the sample): awaited at the end of every scenario, they were a fifth of the scenario
 * time of a run through 50 ms each way.
 */
function refineNetwork(): void {
  if (!network || !profileTimeouts) return;
  const { target } = run();
  if (refining) {
    if (!refining.done) return; // still under way
    if (refining.measured) {
      mergeRoundTrips(network.interfaces, refining.measured);
      applyNetwork(target);
    }
    refining = undefined;
  }
  if (refinedAfter >= REFINING_SCENARIOS) return;
  refinedAfter++;
  const sample: Sample = { ended: Promise.resolve(), done: false };
  sample.ended = measureRoundTrips(target, profileTimeouts.requestMs, 1).then(
    (measured) => {
      sample.measured = measured;
      sample.done = true;
    },
    () => {
      sample.done = true;
    },
  );
  refining = sample;
}

// The guard is wide: its work is bounded on its own (each request by the profile's requestMs), and
// on a machine starved by other work (four `iotc run`s of the project's own tests beside six CPU
// burners) starting the reference and logging in took over 60 s; a run that cannot start should say
// so, not race the hook's clock.
BeforeAll({ timeout: 180_000 }, async () => {
  runLag.enable();
  const runId = newRunId();
  const target = await openTarget(undefined, runId);
  // the embedded reference runs in this process (it shares its clock): no network to measure
  if (!target.sharesClock) {
    const { eventuallyMs, pollIntervalMs, requestMs } = target.timeouts;
    profileTimeouts = { eventuallyMs, pollIntervalMs, requestMs };
    network = {
      roundTripMs: 0,
      interfaces: await measureRoundTrips(target, requestMs),
      timeouts: profileTimeouts,
    };
    applyNetwork(target);
  }
  const sessionOptions = {
    requestTimeoutMs: target.timeouts.requestMs,
    tls: { ca: target.tls.ca, insecureSkipVerify: target.tls.insecureSkipVerify },
    recorder: recordExchange, // into the running scenario's evidence
  };
  // the two logins at once: a worker's start pays one round trip of a remote target, not two
  const customerUser = target.customerUser;
  const [tenant, customerLogin] = await Promise.allSettled([
    onceMoreIfReset(() => AdminClient.login(target.adminUrl, target.tenantAdmin, sessionOptions)),
    customerUser
      ? onceMoreIfReset(() => AdminClient.login(target.adminUrl, customerUser, sessionOptions))
      : undefined,
  ]);
  if (tenant.status === 'rejected' || customerLogin.status === 'rejected') {
    // nothing of the run may stay open, or the process would not end
    await Promise.allSettled([
      tenant.status === 'fulfilled' ? tenant.value.close() : undefined,
      customerLogin.status === 'fulfilled' ? customerLogin.value?.close() : undefined,
      target.close(),
    ]);
    throw tenant.status === 'rejected'
      ? tenant.reason
      : (customerLogin as PromiseRejectedResult).reason;
  }
  const admin = tenant.value;
  const customer = customerLogin.value;
  setRun({
    target,
    admin,
    customer,
    deviceDispatcher: createDeviceDispatcher({
      tls: { ca: target.tls.ca, insecureSkipVerify: target.tls.insecureSkipVerify },
    }),
    journal: new CleanupJournal(journalPath(target.name), runId),
    runId,
  });
});

AfterAll({ timeout: 60_000 }, async () => {
  let context: ReturnType<typeof run>;
  try {
    context = run();
  } catch {
    return; // BeforeAll failed: nothing was opened
  }
  setRun(undefined);
  await refining?.ended; // its sockets closed before the process ends (bounded by requestMs)
  // whatever the scenarios left (a device a provisioning request created, an interrupted cleanup),
  // per the journal only this run's own entities: other workers of a parallel run share the journal
  // and may still use theirs
  const restoring = await restoreOwnSettings(context);
  const { failed } = await cleanupFromJournal(
    context.journal.path,
    context.admin,
    context.target.namePrefix,
    context.runId,
  );
  failed.push(...restoring.failed);
  if (failed.length)
    console.error(
      `iotc: cleanup left ${failed.length} entities; run iotc cleanup --target: ${failed.join('; ')}`,
    );
  await Promise.allSettled([
    context.admin.close(),
    context.customer?.close(),
    context.deviceDispatcher.close(),
    ...retiredDevicePools.splice(0).map((pool) => pool.close()),
  ]);
  runLag.disable();
  await context.target.close();
});

Before(function (this: IotcWorld, { pickle }: ITestCaseHookParameter) {
  recordInto(this.exchanges);
  clearBrokenConnections();
  // The second attempt of a scenario (cucumber's retry) runs only after a transport failure or a
  // verdict the harness's starvation left undecided; any other failure is the target's answer and
  // stands (src/report/verdicts.ts judges by the attempt before a declined retry)
  const previous = retryable.get(pickle.id);
  retryable.delete(pickle.id);
  if (previous && !previous.network)
    throw new Error(
      `${RETRY_DECLINED} the first attempt failed with an answer of the target, not of the network: ${previous.message.split('\n')[0]}`,
    );
  // Ctrl-C: no scenario starts once the run is stopping (it cleans up when the running one has
  // finished)
  if (stopMarked(this.run.journal.path) || !scenarioStarting()) {
    this.log('skipped: the run is stopping');
    return 'skipped';
  }
  this.countedAsRunning = true;
  this.scenarioTags = pickle.tags.map((tag) => tag.name).join(' and ');
  // under abuse, a reset or refused connection is the target's answer: FAIL, never INCONCLUSIVE
  this.transportIsAnswer = pickle.tags.some((tag) => tag.name === '@robustness');
  // a complete command: the same target, the scenario's feature file and its tags (an outline's
  // example included)
  const target = process.env.IOTC_TARGET || 'embedded';
  this.replayCommand = `npx iotc run --target ${shellWord(target)} --tags ${shellWord(this.scenarioTags)} ${shellWord(pickle.uri)}`;
  const missing = pickle.tags
    .map((tag) => tag.name)
    .filter((tag) => tag.startsWith('@capability-'))
    .map((tag) => tag.slice('@capability-'.length))
    .filter((capability) => !this.run.target.capabilities.has(capability as never));
  if (missing.length) {
    this.log(
      `skipped: the target profile lacks the capability ${missing.join(', ')} (add it to the profile's capabilities)`,
    );
    return 'skipped';
  }
  // A declared deviation is verified by its alternative scenarios (@deviation-<id>); the
  // specification's own scenarios of that requirement do not run, and alternatives run only where
  // the deviation is declared.
  const tags = pickle.tags.map((tag) => tag.name);
  const deviations = this.run.target.deviations;
  const alternativeOf = tags
    .filter((tag) => tag.startsWith('@deviation-'))
    .map((tag) => tag.slice('@deviation-'.length));
  if (alternativeOf.length && !alternativeOf.some((id) => id in deviations)) {
    this.log(
      `skipped: verifies a deviation the target profile does not declare (${alternativeOf.join(', ')})`,
    );
    return 'skipped';
  }
  const deviating = tags.map((tag) => tag.slice(1)).filter((id) => id in deviations);
  if (!alternativeOf.length && deviating.length) {
    this.log(
      `skipped: the target profile declares a deviation for ${deviating.join(', ')}; its alternative is verified instead`,
    );
    return 'skipped';
  }
  return undefined;
});

After(
  { timeout: 60_000 },
  async function (this: IotcWorld, { pickle, result, willBeRetried }: ITestCaseHookParameter) {
    // Evidence, passed or failed: the scenario's last exchanges (redacted as recorded); cleanup is
    // not evidence.
    recordInto(undefined);
    this.stalls.stop();
    const networkFailed = leftUndecided(result?.message, result?.exception?.message);
    if (willBeRetried) {
      retryable.set(pickle.id, { network: networkFailed, message: result?.message ?? '' });
      // the retry gets fresh connections: the device drivers' pool may hold the sockets that failed
      if (networkFailed) freshDevicePool();
    }
    refineNetwork();
    // how loaded the harness was: this worker's event-loop lag since it started, and the delays it
    // measured
    await this.attach(
      JSON.stringify({
        pid: process.pid,
        eventLoopLagMs: {
          max: Math.round(runLag.max / 1e6),
          p99: Math.round(runLag.percentile(99) / 1e6),
          mean: Math.round(runLag.mean / 1e6),
        },
        measuredDelays: measuredDelays.summary(),
        ...(network ? { network } : {}),
      }),
      { mediaType: HARNESS_MEDIA_TYPE },
    );
    if (this.exchanges.total > 0 && result?.status !== Status.SKIPPED) {
      await this.attach(this.redact(JSON.stringify(this.exchanges)), {
        mediaType: EXCHANGES_MEDIA_TYPE,
        fileName: 'iotc-exchanges.json',
      });
    }
    const failures: string[] = [];
    let networkOnly = true;
    const undoAll = (batch: IotcWorld['cleanups']) =>
      Promise.all(
        batch.map(async ({ what, undo }) => {
          try {
            await undoThroughNetwork(what, undo, this.run.target.timeouts);
          } catch (error) {
            if (error instanceof AdminApiError && error.status === 404) return; // the scenario deleted it itself
            failures.push(`${what}: ${(error as Error).message}`);
            networkOnly &&= transportFailure(error) !== undefined;
          }
        }),
      );
    // the connections' closes go alongside the batches (cleanup-batches.ts says why)
    const { connections, batches } = cleanupBatches(this.cleanups.reverse());
    const closing = undoAll(connections);
    for (const batch of batches) await undoAll(batch);
    await closing;
    // Abandoned long-polls and RPC calls are awaited so they cannot leak into the next scenario.
    await this.pending.settled();
    await Promise.allSettled(this.ownDrivers.map((driver) => driver.close()));
    this.releaseLane();
    if (this.countedAsRunning) scenarioFinished();
    if (failures.length) {
      // a cleanup the network broke says nothing of the target (AfterAll's journal cleanup tries
      // again)
      if (networkOnly)
        throw new Inconclusive(`${NETWORK_FAILED} while cleaning up: ${failures.join('; ')}`);
      throw new Error(`cleanup failed for ${failures.join('; ')}`);
    }
  },
);

/**
 * Whether a failed scenario's message is that of a transport error, or of a verdict the harness's
 * starvation left undecided (INCONCLUSIVE either way): the bounded retry (cucumber's one) may
 * decide it on a quieter moment.
 */
function leftUndecided(message?: string, exceptionMessage?: string): boolean {
  const text = exceptionMessage ?? message ?? '';
  return [NETWORK_FAILURE, STARVED].some(
    (opening) => text.startsWith(opening) || (message ?? '').includes(`: ${opening}`),
  );
}

/**
 * Runs a cleanup's undo (a delete, a setting put back: each may be done twice); one the network
 * broke (a reset, a refused connect) is tried again until it is done or eventuallyMs is spent
 * (timing.ts untilEffective). An entity the network kept from being deleted would stay under a name
 * the run's next scenarios use again (`unique`), and they would FAIL on "already exists" for the
 * network's sake. A delete that was done before its answer was lost answers 404 to the next try,
 * which the caller counts as done. Any other error ends the tries at once.
 */
async function undoThroughNetwork(
  what: string,
  undo: () => Promise<void>,
  profile: TimingProfile,
): Promise<void> {
  let done = false;
  let broken: unknown;
  // the first try alone, as untilEffective's first try would be: a run undoes some 1,500 things
  // and nearly all take at once, while untilEffective's watches (an event-loop delay histogram
  // and a stall timer, for a verdict on starvation that only a try that never took effect needs)
  // cost more than the rest of it. Tries after a broken one go through untilEffective from here.
  const started = performance.now();
  try {
    await undo();
    measuredDelays.record('cleanup', performance.now() - started);
    return;
  } catch (error) {
    if (transportFailure(error) === undefined) throw error;
    broken = error;
  }
  try {
    await untilEffective(
      `the cleanup of ${what}`,
      'cleanup',
      async () => {
        try {
          await undo();
          done = true;
        } catch (error) {
          if (transportFailure(error) === undefined) throw error;
          broken = error;
        }
      },
      () => done,
      profile,
    );
  } catch (error) {
    throw error instanceof NotEffective && broken ? broken : error;
  }
}

/**
 * Device pools replaced by freshDevicePool, closed when the worker ends: the drivers of scenarios
 * running beside (several at once in a worker, staggered-workers.ts) still hold the old one.
 */
const retiredDevicePools: Array<ReturnType<typeof run>['deviceDispatcher']> = [];

/**
 * Replaces the device drivers' connection pool for the scenarios that start from now on (the
 * sockets that failed go with the old one). The old pool is not closed here: a scenario running
 * beside in the same worker keeps its drivers on it, and a request through a closed pool fails with
 * "The client is closed", which is no answer of the target (a false FAIL: a neighbour's retry after
 * a starved claim window closed the pool under "Invalid client attributes", bench/README.md "The
 * robustness scenarios sorted"). Its idle sockets end on their keep-alive timeout.
 */
function freshDevicePool(): void {
  const context = run();
  retiredDevicePools.push(context.deviceDispatcher);
  context.deviceDispatcher = createDeviceDispatcher({
    tls: { ca: context.target.tls.ca, insecureSkipVerify: context.target.tls.insecureSkipVerify },
  });
}

/** A word for a POSIX shell: as it is when it is plain, else in single quotes. */
function shellWord(text: string): string {
  return /^[\w@./:=,+-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}

/**
 * Settings this run changed and a scenario's own undo did not put back (it failed, or never ran).
 */
async function restoreOwnSettings(context: ReturnType<typeof run>): Promise<{ failed: string[] }> {
  const { target, journal, runId } = context;
  if (unrestoredSettings(journal.path, runId).length === 0) return { failed: [] };
  const sysadmin = target.sysAdmin
    ? await AdminClient.login(target.adminUrl, target.sysAdmin, {
        requestTimeoutMs: target.timeouts.requestMs,
        tls: { ca: target.tls.ca, insecureSkipVerify: target.tls.insecureSkipVerify },
      }).catch(() => undefined)
    : undefined;
  try {
    return await restoreSettingsFromJournal(journal.path, sysadmin, runId);
  } finally {
    await sysadmin?.close();
  }
}
