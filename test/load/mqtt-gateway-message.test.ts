/** The telemetry message of the mqtt-gateway profile: one device's seq at its ts, padded to a size, as JSON. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { messageText, messageWriter, PAD_OVERHEAD } from '../../load/mqtt-gateway-publish';

test('a message is the device name (quoted as JSON) over one entry with ts, seq, v and the padding', () => {
  const name = 'iotc-load-"quoted"\\g0-d1';
  const write = messageWriter(name, '');
  assert.deepEqual(JSON.parse(write(1_700_000_000_123, 1234)), {
    [name]: [{ ts: 1_700_000_000_123, values: { seq: 1234, v: 234 } }],
  });
  assert.equal(write(5, 7), messageText(name, 5, 7, ''), 'the writer and messageText agree');
  const padded = messageWriter(name, 'xxxx')(5, 7);
  assert.deepEqual(JSON.parse(padded), {
    [name]: [{ ts: 5, values: { seq: 7, v: 7, pad: 'xxxx' } }],
  });
  assert.equal(padded.length, write(5, 7).length + PAD_OVERHEAD + 4);
});
