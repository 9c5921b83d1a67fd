/**
 * The short network-fault run through resets, in every `npm test` (its latency half:
 * network-faults-short.test.ts): a feature of each platform interface against `iotc simulate` while
 * every MQTT connection is reset every 1.5 s and a random HTTP one every second. No FAIL, and every
 * INCONCLUSIVE names its transport error or the harness's starvation. The gateway feature is the one
 * the issue saw FAIL through a single reset (GW-STATE-06).
 */
import { test } from 'node:test';
import { assertThroughResets, inconclusiveLines, SHORT_NETWORK_RUN } from '../support/remote-run';

test('a feature of each interface through resets of every MQTT connection and of random HTTP ones: no FAIL, every INCONCLUSIVE named', {
  timeout: 600_000, // a hang guard only
}, async () => {
  const result = await assertThroughResets(SHORT_NETWORK_RUN, {
    mqttEveryMs: 1500,
    httpEveryMs: 1000,
  });
  console.log(
    `short, resets: ${Math.round(result.wallMs / 1000)} s, ${JSON.stringify(result.proxyStats)}, ${inconclusiveLines(result.output).length} INCONCLUSIVE`,
  );
});
