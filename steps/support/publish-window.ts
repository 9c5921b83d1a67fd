/**
 * A QoS 1 publish whose PUBACK a scenario may expect never to come (ThingsBoard's deviations
 * MQTT-DEV-TEL-01-EMPTY and GW-TEL-01-EMPTY: telemetry as an empty array is never acknowledged,
 * DefaultTransportService.java:551-559). The publish step waits for the PUBACK only for a quiet
 * window derived from the PUBACK delays the run measured (timing.ts quietWindowMs, kind
 * PUBACK_DELAY, at least quietFloorMs): a PUBACK later than that leaves the publish pending, and
 * every step that judges the PUBACK itself (`settledPublish`) waits for the rest of the driver's
 * acknowledgement timeout (requestMs) as before, so its verdict is the same. Only "the publish gets
 * no PUBACK" takes the window as its answer, instead of waiting the whole requestMs (10 s on the
 * twins, 30 s on ThingsBoard) for a PUBACK that a window three times the measured delays has not
 * seen; a PUBACK that still comes later in the scenario fails it (`lateAcknowledgement`).
 */
import { performance } from 'node:perf_hooks';
import type { MqttConnection, PublishOutcome } from '../../simulators/device/mqtt-connection';
import type { IotcWorld, PendingPublish } from '../world';
import { quietFloorMs } from './readiness';
import { measuredDelays, quietWindowMs } from './timing';

/** The delay from a QoS 1 publish to its PUBACK (DelayRecord kind). */
export const PUBACK_DELAY = 'mqtt-puback';

/** Records the delay of an acknowledged QoS 1 publish: the quiet window of a missing PUBACK. */
export function recordPuback(outcome: PublishOutcome): void {
  if (outcome.result === 'acked' && outcome.qos === 1)
    measuredDelays.record(PUBACK_DELAY, outcome.elapsedMs);
}

/**
 * Publishes through `publish` and sets world.lastPublish: the driver's outcome when it comes within
 * the quiet window of a PUBACK, otherwise a provisional 'timeout' of that window, with the publish
 * kept in world.pendingPublish. `onSettled` runs once the driver's outcome is there (a telemetry
 * step's sent window ends with the PUBACK). An earlier publish still pending (not judged
 * unacknowledged) is settled first: publishes stay one after the other, as when each step awaited
 * its PUBACK.
 */
export async function publishWithinWindow(
  world: IotcWorld,
  topic: string,
  connection: MqttConnection,
  publish: () => Promise<PublishOutcome>,
  onSettled: () => void = () => undefined,
): Promise<void> {
  await settledPublish(world);
  const windowMs = quietWindowMs(PUBACK_DELAY, world.run.target.timeouts, quietFloorMs(world));
  const started = performance.now();
  const settled = publish().then((outcome) => {
    recordPuback(outcome);
    onSettled();
    return outcome;
  });
  let timer: NodeJS.Timeout | undefined;
  const early = await Promise.race([
    settled,
    new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), windowMs);
    }),
  ]);
  clearTimeout(timer);
  if (early) {
    world.lastPublish = early;
    return;
  }
  const pending: PendingPublish = { topic, connection, windowMs, settled };
  void settled.then((outcome) => {
    pending.outcome = outcome;
  });
  world.pendingPublish = pending;
  world.lastPublish = {
    topic,
    qos: 1,
    result: 'timeout',
    elapsedMs: performance.now() - started,
  };
}

/**
 * The last publish's outcome for a step that judges its PUBACK: a pending one is waited for to the
 * end of the driver's acknowledgement timeout, as before the window. A publish a step judged
 * unacknowledged is not waited for again.
 */
export async function settledPublish(world: IotcWorld): Promise<PublishOutcome | undefined> {
  const pending = world.pendingPublish;
  if (pending && !pending.judgedUnacknowledged) {
    world.pendingPublish = undefined;
    world.lastPublish = await pending.settled;
  }
  return world.lastPublish;
}

/**
 * A publish judged unacknowledged (no PUBACK within its window) whose PUBACK has come since: the
 * target acknowledged it after all, only later than the window. Undefined when none.
 */
export function lateAcknowledgement(world: IotcWorld): string | undefined {
  const pending = world.pendingPublish;
  if (!pending?.judgedUnacknowledged || pending.outcome?.result !== 'acked') return undefined;
  return `the publish on ${pending.topic}, judged unacknowledged after a ${pending.windowMs} ms window, got its PUBACK ${Math.round(pending.outcome.elapsedMs)} ms after it was sent`;
}
