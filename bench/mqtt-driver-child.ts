/**
 * The bare driver's side of the generator / bare driver line (bench/load-generator-bench.ts), in a
 * fresh process of its own as `iotc load mqtt-gateway` is: the gateway driver (MqttGateway, MQTT 5,
 * QoS 1, one device) keeps <window> publishes unacknowledged against <mqtt url> (the bench's sink,
 * any token) for <warm-up s> + <counted s>. Publishing from the bench process, it ran after every
 * earlier line of the bench (their heap, their JIT state, their GC): its CPU per publish spread
 * 19.6–30.2 µs in the full bench and was steady alone. Prints one JSON line at its end:
 * `{"acknowledged", "failures", "countedFrom", "countedTo", "series"}`: the acknowledged publishes
 * of the counted seconds and their ends (Date.now()), and `series`, [Date.now(), publishes
 * acknowledged so far] every SERIES_MS, so that the parent counts this side's publishes and CPU
 * (read from /proc as the generator's) over the seconds it counts the generator's (the
 * generator's per-second samples). Arguments: <mqtt url> <window> <warm-up s> <counted s> [rate];
 * it publishes for one second more, not counted. Without a rate, `window` publishers each send the
 * next as soon as one is answered (saturated); with one, paced as the generator paces.
 */
import { isFailure } from '../simulators/device/mqtt-connection';
import { GATEWAY_TOPICS, MqttGateway } from '../simulators/gateway/mqtt-gateway';
import { stopWithParent } from './child-lifecycle';

/** How often the paced publishing sends what the rate owes (as the generator's loop). */
const TICK_MS = 5;
/** How often the count of acknowledged publishes is noted for `series`. */
const SERIES_MS = 100;
/** Publishing goes on this long after the counted window. */
const TAIL_MS = 1000;
const TELEMETRY = JSON.stringify({ 'Bench Device': [{ ts: 1, values: { seq: 1, v: 1 } }] });

async function main(): Promise<void> {
  const [url, window, warmupS, countedS, rate] = process.argv.slice(2);
  const gateway = await MqttGateway.connect({
    url,
    token: 'bench-token',
    protocolVersion: 5,
    qos: 1,
    subscribe: false,
  });
  try {
    await gateway.connectDevice('Bench Device');
    let acknowledged = 0;
    let failures = 0;
    let acknowledgedInAll = 0;
    const series: [number, number][] = [[Date.now(), 0]];
    const noting = setInterval(() => series.push([Date.now(), acknowledgedInAll]), SERIES_MS);
    const started = performance.now();
    const warm = started + Number(warmupS) * 1000;
    const end = warm + Number(countedS) * 1000;
    let countedFrom: number | undefined;
    let countedTo: number | undefined;
    const answered = (outcome: Awaited<ReturnType<MqttGateway['publish']>>) => {
      const now = performance.now();
      if (isFailure(outcome)) {
        failures++;
        return;
      }
      acknowledgedInAll++;
      if (now >= warm && now < end) {
        countedFrom ??= Date.now();
        acknowledged++;
      } else if (now >= end) countedTo ??= Date.now();
    };
    const publish = () => gateway.publish(GATEWAY_TOPICS.telemetry, { raw: TELEMETRY }, 1);
    // on for TAIL_MS after the counted window, so that its end falls inside publishing, as the
    // generator's does (its last counted second is followed by one cut short): the CPU read
    // around the end is the publishing's
    const stopAt = end + TAIL_MS;
    if (rate === undefined) {
      const publisher = async () => {
        while (performance.now() < stopAt) answered(await publish());
      };
      await Promise.all(Array.from({ length: Number(window) }, publisher));
    } else await paced(Number(rate), Number(window), started, stopAt, publish, answered);
    clearInterval(noting);
    series.push([Date.now(), acknowledgedInAll]);
    const to = countedTo ?? Date.now();
    process.stdout.write(
      `${JSON.stringify({ acknowledged, failures, countedFrom: countedFrom ?? to, countedTo: to, series })}\n`,
    );
  } finally {
    await gateway.close();
  }
}

/**
 * At a fixed rate, paced as `iotc load mqtt-gateway` paces its publishes (load/mqtt-gateway-publish.ts):
 * what the rate owes since the start, sent every TICK_MS and on each answer, while fewer than
 * `window` are unanswered; resolves when the last is answered after `stopAt`. So that both sides
 * write and read alike: saturated, how many PUBACKs a read brings (and so the CPU per publish)
 * follows how busy the machine is.
 */
function paced(
  rate: number,
  window: number,
  started: number,
  stopAt: number,
  publish: () => Promise<Awaited<ReturnType<MqttGateway['publish']>>>,
  answered: (outcome: Awaited<ReturnType<MqttGateway['publish']>>) => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    let inFlight = 0;
    let sending = true;
    const pump = () => {
      const now = performance.now();
      if (now >= stopAt) {
        sending = false;
        clearInterval(ticker);
        if (inFlight === 0) resolve();
        return;
      }
      const owed = Math.floor(((now - started) / 1000) * rate) + 1;
      while (sent < owed && inFlight < window) {
        sent++;
        inFlight++;
        publish().then((outcome) => {
          inFlight--;
          answered(outcome);
          if (sending) pump();
          else if (inFlight === 0) resolve();
        }, reject);
      }
    };
    const ticker = setInterval(pump, TICK_MS);
    pump();
  });
}

stopWithParent(() => process.exit(130));
main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error((error as Error).message);
    process.exit(1);
  },
);
