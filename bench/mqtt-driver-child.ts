/**
 * The bare driver's side of the generator / bare driver line (bench/load-generator-bench.ts), in a
 * fresh process of its own as `iotc load mqtt-gateway` is: the gateway driver (MqttGateway, MQTT 5,
 * QoS 1, one device) keeps <window> publishes unacknowledged against <mqtt url> (the bench's sink,
 * any token) for <warm-up s> + <counted s>. Publishing from the bench process, it ran after every
 * earlier line of the bench (their heap, their JIT state, their GC): its CPU per publish spread
 * 19.6–30.2 µs in the full bench and was steady alone. Prints one JSON line at its end:
 * `{"acknowledged", "failures", "countedFrom", "countedTo"}`, the acknowledged publishes of the
 * counted seconds and their ends (Date.now()), at which the parent reads this process's CPU from
 * /proc as it does the generator's. Arguments: <mqtt url> <window> <warm-up s> <counted s>; it
 * publishes for one second more, not counted.
 */
import { isFailure } from '../simulators/device/mqtt-connection';
import { GATEWAY_TOPICS, MqttGateway } from '../simulators/gateway/mqtt-gateway';
import { stopWithParent } from './child-lifecycle';

/** Publishing goes on this long after the counted window. */
const TAIL_MS = 1000;
const TELEMETRY = JSON.stringify({ 'Bench Device': [{ ts: 1, values: { seq: 1, v: 1 } }] });

async function main(): Promise<void> {
  const [url, window, warmupS, countedS] = process.argv.slice(2);
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
    const warm = performance.now() + Number(warmupS) * 1000;
    const end = warm + Number(countedS) * 1000;
    let countedFrom: number | undefined;
    let countedTo: number | undefined;
    const publisher = async () => {
      // on for TAIL_MS after the counted window, so that its end falls inside publishing, as the
      // generator's does (its last counted second is followed by one cut short): the CPU read
      // around the end is the publishing's
      while (performance.now() < end + TAIL_MS) {
        const outcome = await gateway.publish(GATEWAY_TOPICS.telemetry, { raw: TELEMETRY }, 1);
        const now = performance.now();
        if (isFailure(outcome)) failures++;
        else if (now >= warm && now < end) {
          countedFrom ??= Date.now();
          acknowledged++;
        } else if (now >= end) countedTo ??= Date.now();
      }
    };
    await Promise.all(Array.from({ length: Number(window) }, publisher));
    const to = countedTo ?? Date.now();
    process.stdout.write(
      `${JSON.stringify({ acknowledged, failures, countedFrom: countedFrom ?? to, countedTo: to })}\n`,
    );
  } finally {
    await gateway.close();
  }
}

stopWithParent(() => process.exit(130));
main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error((error as Error).message);
    process.exit(1);
  },
);
