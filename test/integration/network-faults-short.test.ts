/**
 * The short version of network-faults.test.ts, in every `npm test`: a handful of features, one of
 * each platform interface (HTTP device API with long-polls, MQTT device API, MQTT gateway API with
 * RPCs across a disconnect, admin authentication), run against `iotc simulate` through 200 ms each
 * way. No FAIL, and every INCONCLUSIVE is the harness's own starvation on a busy machine. The same
 * features through periodic resets: network-faults-short-resets.test.ts (a file of its own, so that
 * the test runner runs the two side by side).
 */
import { test } from 'node:test';
import { HARNESS_STARVED } from '../../steps/support/timing';
import assert from 'node:assert/strict';
import { credentialLeaks, reportTexts } from '../support/report-credentials';
import { assertThroughLatency, SHORT_NETWORK_RUN } from '../support/remote-run';

test('a feature of each interface through 200 ms each way: no FAIL, the round trip measured', {
  timeout: 600_000, // a hang guard only
}, async () => {
  const result = await assertThroughLatency(SHORT_NETWORK_RUN, HARNESS_STARVED);
  // a remote run's evidence (device tokens, JWTs, API keys through a profile) shows no credential
  // (issue 26 item 6)
  assert.deepEqual(
    credentialLeaks([...reportTexts(result.reportsDir), ['the console', result.output]]),
    [],
  );
  console.log(`short, 200 ms each way: ${Math.round(result.wallMs / 1000)} s`);
});
