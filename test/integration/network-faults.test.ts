/**
 * Verdicts that survive the network path to a remote target: the reference platform as a separate process
 * (`iotc simulate`), reached by URL through a target profile, with a fault proxy (test/support/fault-proxy.ts) in
 * front of each of its ports. A bad network may make a requirement INCONCLUSIVE, naming the transport error, but
 * never FAIL: every FAIL names a difference of the target, and this target conforms.
 *
 * Selection: the platform features (HTTP device API, MQTT device API, MQTT gateway API, admin authentication).
 * The robustness features are left out on purpose: in a @robustness scenario a reset is the target's answer (it was
 * abused meanwhile) and FAILs (steps/support/transport.ts), so a proxy that resets connections would fail them by
 * design. Under latency the run is parallel (steps/support/exclusive.ts), bound by the network's round trips.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HARNESS_STARVED } from '../../steps/support/timing';
import { runAgainstSimulate, type RemoteRunResult } from '../support/remote-run';

const PLATFORM_TAGS = '@http-device-api or @mqtt-device-api or @mqtt-gateway-api or @admin-auth';

/**
 * Runs only with IOTC_NETWORK_TESTS=1: each test takes minutes on a loaded 2-core machine (the +200 ms run in 7
 * workers took 297 s, the resets run 73 s), and the resets run still finds a false FAIL now and then
 * (docs/concepts/remote-network.md, "Open": a gateway publish that ends `closed` with no socket error noted).
 */
const skip =
  process.env.IOTC_NETWORK_TESTS === '1'
    ? false
    : 'set IOTC_NETWORK_TESTS=1 (about 10 minutes; docs/concepts/remote-network.md)';

/** Requirements that are not PASS, and every INCONCLUSIVE one must name a transport error. */
function judge(result: RemoteRunResult): { failed: string[]; inconclusive: string[] } {
  assert.ok(result.report, `no conformance.json was written:\n${result.output.slice(-4000)}`);
  const failed: string[] = [];
  const inconclusive: string[] = [];
  for (const requirement of result.report.requirements) {
    if (requirement.verdict === 'FAIL') failed.push(requirement.id);
    if (requirement.verdict === 'INCONCLUSIVE') inconclusive.push(requirement.id);
  }
  return { failed, inconclusive };
}

/** The console lines that say why each INCONCLUSIVE requirement could not be decided. */
function inconclusiveLines(output: string): string[] {
  return output.split('\n').filter((line) => line.trimStart().startsWith('INCONCLUSIVE '));
}

test('the platform features through 200 ms of latency each way: no FAIL, and the measured round trip in the report', {
  timeout: 1_800_000, // a hang guard only
  skip,
}, async () => {
  const result = await runAgainstSimulate({
    runArgs: ['--tags', PLATFORM_TAGS],
    faults: { latencyMs: 200, jitterMs: 20 },
  });
  const { failed, inconclusive } = judge(result);
  assert.deepEqual(failed, [], `FAIL through latency alone:\n${result.output.slice(-6000)}`);
  // latency breaks no connection: nothing may be undecided for the network's sake. A verdict the harness could not
  // time because its own event loop stalled (a busy machine, steps/support/timing.ts LagWatch) is INCONCLUSIVE by
  // the timing model's rule and says so; that is the machine, not the path, and is allowed here
  const undecided = inconclusiveLines(result.output).filter(
    (line) => !line.includes(HARNESS_STARVED),
  );
  assert.deepEqual(undecided, [], undecided.join('\n'));
  if (!inconclusive.length) assert.equal(result.code, 0, result.output.slice(-4000));
  // the report prints what the run measured: a round trip of at least the 400 ms the proxy adds
  const harness = (
    result.report!.run as { harness?: Array<{ network?: { roundTripMs: number } }> } | undefined
  )?.harness;
  assert.ok(harness?.length, 'the report has the harness facts');
  for (const worker of harness!) assert.ok((worker.network?.roundTripMs ?? 0) >= 400);
  assert.match(result.output, /Network: round trip http \d+ ms, admin \d+ ms, mqtt \d+ ms/);
  console.log(`200 ms each way: ${Math.round(result.wallMs / 1000)} s`);
});

test('the platform features through periodic resets of every MQTT connection and of random HTTP ones: no FAIL, every INCONCLUSIVE names the network', {
  timeout: 1_800_000,
  skip,
}, async () => {
  const result = await runAgainstSimulate({
    runArgs: ['--tags', PLATFORM_TAGS],
    faultsFor: {
      mqtt: { resetEveryMs: 3000, resetWhich: 'all' },
      http: { resetEveryMs: 2000, resetWhich: 'one' },
    },
  });
  const { failed } = judge(result);
  assert.deepEqual(failed, [], `FAIL through resets:\n${result.output.slice(-6000)}`);
  assert.ok(
    (result.proxyStats?.mqtt?.resets ?? 0) > 0,
    'the proxy did reset connections (else this test proves nothing)',
  );
  for (const line of inconclusiveLines(result.output))
    assert.match(
      line,
      /the network failed\b.*\b(E[A-Z]{3,}|UND_ERR_[A-Z_]+)\b/,
      `an INCONCLUSIVE that does not name the transport error: ${line}`,
    );
  console.log(
    `resets: ${Math.round(result.wallMs / 1000)} s, ${JSON.stringify(result.proxyStats)}, ${inconclusiveLines(result.output).length} INCONCLUSIVE`,
  );
});
