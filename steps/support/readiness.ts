/**
 * Readiness proofs of the downlink (shared attribute updates to a gateway's devices and to an MQTT
 * device). A platform acknowledges a subscription (SUBACK) or a gateway connect (PUBACK) before it
 * acts on it: ThingsBoard queues the session open and the attribute subscription to the device
 * actor through its core queue, and an update the actor handles before them is dropped without a
 * trace (DeviceActorMessageProcessor.java:605-638 under /root/tbw/tb: no subscribed session,
 * nothing sent). A disconnect is acknowledged before the session is removed. So before an update
 * under test the harness proves the path effective with a marker update of its own (the reserved
 * key PROBE_KEY, an increasing value) repeated until it arrives (timing.ts `untilEffective`), and a
 * check that nothing arrives after a disconnect is eventual (`untilEffective` of probe rounds with
 * a quiet window).
 *
 * The reserved key is the harness's own: the counting and "exactly" steps drop it from what they
 * compare and do not count an update that carried nothing else, so a late probe (a try that took
 * effect after the one that proved the path) never changes a count. Only that key is dropped: any
 * other key the platform adds is still seen.
 */
import { jsonEqual } from '../../lib/kv/values';
import type { IotcWorld } from '../world';
import { HARNESS_FAULT_NAMES } from '../../faults/client-catalogue';
import { setTimeout as delay } from 'node:timers/promises';
import {
  type EffectOutcome,
  LagWatch,
  NotEffective,
  quietWindowMs,
  untilEffective,
} from './timing';

/** The reserved shared attribute of the harness's readiness probes. No scenario may set it. */
export const PROBE_KEY = 'iotcProbe';

/** The delay kinds the probes record in timing.ts's measuredDelays. */
export const DELAY_KINDS = {
  gatewayUpdate: 'gateway attribute update',
  deviceUpdate: 'MQTT device attribute update',
  disconnect: 'gateway disconnect effective',
} as const;

let lastProbe = 0;

/** A probe value above every earlier one of this process (a timestamp when the clock allows). */
export function nextProbeValue(): number {
  lastProbe = Math.max(lastProbe + 1, Date.now());
  return lastProbe;
}

/** The update without the harness's probe key; undefined when it carried nothing else (a probe). */
export function withoutProbe(data: Record<string, unknown>): Record<string, unknown> | undefined {
  if (!Object.hasOwn(data, PROBE_KEY)) return data;
  const { [PROBE_KEY]: _probe, ...rest } = data;
  return Object.keys(rest).length ? rest : undefined;
}

/** Whether the update carries the probe value `value`. */
export function carriesProbe(data: Record<string, unknown>, value: number): boolean {
  return jsonEqual(data[PROBE_KEY], value);
}

/**
 * The harness fault `no-readiness-proof` (faults/client-catalogue.ts HARNESS_FAULT_CATALOGUE): the
 * proofs are skipped and the update under test follows the SUBACK / PUBACK at once, as the suite
 * did before. Against a conforming but asynchronous platform (ThingsBoard, an asynchronous twin)
 * that run must FAIL.
 */
export function readinessProofSkipped(): boolean {
  return (process.env.IOTC_HARNESS_FAULT ?? '')
    .split(',')
    .map((name) => name.trim())
    .includes(HARNESS_FAULT_NAMES.noReadinessProof);
}

/** Sets the probe `{PROBE_KEY: value}` as a shared attribute of the device. */
export async function setProbe(world: IotcWorld, local: string, value: number): Promise<void> {
  await world.run.admin.saveAttributes(
    world.device(local).record.id,
    'SHARED_SCOPE',
    JSON.stringify({ [PROBE_KEY]: value }),
  );
}

/**
 * Sets probes on the device until one of them (any try, also a late one) is seen by `received`; the
 * delay of the one that arrived is recorded under `kind`. Throws NotEffective (a FAIL) when none
 * arrives in eventuallyMs.
 */
export async function proveDelivery(
  world: IotcWorld,
  local: string,
  what: string,
  kind: string,
  received: (value: number) => boolean,
  receivedSoFar: () => unknown[],
): Promise<EffectOutcome> {
  const values: number[] = [];
  let outcome: EffectOutcome;
  try {
    outcome = await untilEffective(
      what,
      kind,
      async (attempt) => {
        const value = nextProbeValue();
        values[attempt - 1] = value;
        await setProbe(world, local, value);
      },
      (attempt) => values.slice(0, attempt).some(received),
      world.run.target.timeouts,
    );
  } catch (error) {
    if (!(error instanceof NotEffective)) throw error;
    // the evidence: what did arrive instead of a probe {PROBE_KEY: value}
    throw new NotEffective(
      `${error.message}; sent {"${PROBE_KEY}": ${values.join(' | ')}}, received ${JSON.stringify(receivedSoFar())}`,
    );
  }
  world.log(
    `${what}: proven after ${outcome.tries} ${outcome.tries === 1 ? 'try' : 'tries'}, delivered in ${Math.round(outcome.delayMs)} ms`,
  );
  return outcome;
}

/**
 * The floor of a downlink quiet window: a twentieth of eventuallyMs (150 ms on the embedded
 * targets, 500 ms on ThingsBoard). Twice the poll interval (timing.ts's default, 40 ms embedded) is
 * shorter than the stalls a busy machine gives the harness, and the window would be refused as
 * starved for no fault of the target.
 */
export function quietFloorMs(world: IotcWorld): number {
  const { eventuallyMs, pollIntervalMs } = world.run.target.timeouts;
  return Math.max(2 * pollIntervalMs, eventuallyMs / 20);
}

/**
 * Waits a quiet window of `kind` (timing.ts quietWindowMs: three times the largest delay of that
 * kind the run measured, at least quietFloorMs, at most eventuallyMs) for anything late to arrive,
 * and refuses (INCONCLUSIVE) when the harness's own event loop was stalled for half of it. Returns
 * the window in ms.
 */
export async function awaitQuietWindow(
  world: IotcWorld,
  kind: string,
  doing: string,
): Promise<number> {
  const windowMs = quietWindowMs(kind, world.run.target.timeouts, quietFloorMs(world));
  const watch = new LagWatch();
  try {
    await delay(windowMs);
    watch.refuseIfStarved(windowMs / 2, doing);
  } finally {
    watch.stop();
  }
  return windowMs;
}
