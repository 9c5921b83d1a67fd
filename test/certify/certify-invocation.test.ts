/**
 * `iotc certify` refuses invocations it could only half honour, before it starts anything: exit 2
 * (bad invocation) with the reason, never a session that silently ignores an option.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { exitOf, spawnIotc } from '../support/children';

const CASES: Array<[string[], RegExp]> = [
  [
    ['device', '--transport', 'http', '--mqtt-version', '5', '--exec', 'true'],
    /--mqtt-version is for an MQTT client/,
  ],
  [['gateway', '--exec', 'true', '--console'], /--exec "<command>", or --console \(not both\)/],
  [['device', '--exec', 'true', '--console'], /--exec "<command>", or --console \(not both\)/],
  [['device'], /--exec "<command>", or --console \(not both\)/],
  [['gateway'], /give the gateway under test with --exec/],
];

for (const [args, reason] of CASES)
  test(`iotc certify ${args.join(' ')}: exit 2, ${reason.source}`, async () => {
    const result = await exitOf(spawnIotc(['certify', ...args]));
    assert.equal(result.code, 2, result.output);
    assert.match(result.output, reason);
  });
