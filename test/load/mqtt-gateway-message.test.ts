/**
 * The telemetry message of the mqtt-gateway profile: one device's seq at its ts, padded to a size,
 * as JSON.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  messageHead,
  messageOf,
  messageTail,
  messageText,
  PAD_OVERHEAD,
} from '../../load/mqtt-gateway-publish';

test('a message is the device name (quoted as JSON) over one entry with ts, seq, v and the padding', () => {
  const name = 'iotc-load-"quoted"\\g0-d1';
  const head = messageHead(name);
  const plain = messageOf(head, 1_700_000_000_123, 1234, messageTail(''));
  assert.deepEqual(JSON.parse(plain), {
    [name]: [{ ts: 1_700_000_000_123, values: { seq: 1234, v: 234 } }],
  });
  assert.equal(plain, messageText(name, 1_700_000_000_123, 1234, ''), 'the parts make messageText');
  const padded = messageOf(head, 5, 7, messageTail('xxxx'));
  assert.deepEqual(JSON.parse(padded), {
    [name]: [{ ts: 5, values: { seq: 7, v: 7, pad: 'xxxx' } }],
  });
  assert.equal(padded, messageText(name, 5, 7, 'xxxx'));
  assert.equal(padded.length, messageText(name, 5, 7, '').length + PAD_OVERHEAD + 4);
});
