/**
 * An MQTT connection the network resets: the connection keeps the socket error and tells it
 * (MqttConnection.onSocketError, which steps/hooks.ts turns into the scenario's broken-connection
 * note), a subscribe on the closed connection rejects instead of waiting for ever (mqtt.js holds it
 * for a reconnect), and a firmware download whose connection is reset between the request's PUBACK
 * and the chunk fails at once with the reset as its cause, which steps/support/transport.ts names
 * (INCONCLUSIVE, not FAIL). Against a minimal MQTT 5 server made of mqtt-packet that resets the
 * connection (RST) after the PUBACK of a firmware request.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MqttConnection } from '../../simulators/device/mqtt-connection';
import { downloadFirmwareOverMqtt } from '../../simulators/device/mqtt-firmware';
import { transportFailure } from '../../steps/support/transport';
import { miniMqtt5Server } from '../support/mini-mqtt5-server';

function resettingServer(): ReturnType<typeof miniMqtt5Server> {
  return miniMqtt5Server((packet, send, socket) => {
    if (packet.cmd === 'connect') send({ cmd: 'connack', reasonCode: 0, sessionPresent: false });
    else if (packet.cmd === 'subscribe')
      send({
        cmd: 'suback',
        messageId: packet.messageId,
        granted: packet.subscriptions.map(() => 1),
      });
    else if (packet.cmd === 'publish') {
      send({ cmd: 'puback', messageId: packet.messageId, reasonCode: 0 });
      // the chunk never comes: the path is reset right after the acknowledgement
      if (packet.topic.startsWith('v2/fw/request/')) setTimeout(() => socket.resetAndDestroy(), 20);
    }
  });
}

test('a reset between a firmware request and its chunk ends the download at once, naming the reset; a later subscribe rejects', async () => {
  const server = await resettingServer();
  const told: string[] = [];
  const before = MqttConnection.onSocketError;
  MqttConnection.onSocketError = (error) => told.push(error.code);
  try {
    const connection = await MqttConnection.open({
      url: server.url,
      token: 't',
      ackTimeoutMs: 2000,
    });
    const download = downloadFirmwareOverMqtt(connection, {
      requestId: 1,
      size: 3000,
      chunkSize: 1024,
      chunkTimeoutMs: 20_000,
    });
    const error = await download.then(
      () => assert.fail('the download succeeded without a chunk'),
      (failure: unknown) => failure,
    );
    // the reset, not the 20 s chunk timeout, ended it: the error names the broken connection
    assert.match(
      String(error),
      /the connection was broken \(ECONNRESET\) before v2\/fw\/response\/1\/chunk\/0/,
    );
    assert.match(transportFailure(error) ?? '', /ECONNRESET/);
    assert.equal(connection.socketError?.code, 'ECONNRESET');
    assert.deepEqual(told, ['ECONNRESET']);
    // what a step that waited in vain says of it (steps/support/rpc-answer.ts)
    assert.match(
      connection.describe(),
      /^the MQTT connection was broken by the network \(ECONNRESET\)$/,
    );
    const subscribed = await connection.subscribe(['a/b']).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    assert.ok(subscribed, 'a subscribe on a reset connection resolved');
    assert.match(transportFailure(subscribed) ?? '', /ECONNRESET/);
  } finally {
    MqttConnection.onSocketError = before;
    server.close();
  }
});

/**
 * A server that answers a publish on `close/<how>` with its PUBACK and then, in the same turn of its
 * loop, resets the connection (`reset`) or ends it (`end`): the PUBACK and the RST reach the
 * client's socket before it reads, so libuv reads the data and reports the reset as the end of the
 * stream (no 'error'), as it did under the fault proxy's resets on a loaded machine.
 */
function closingAfterData(): ReturnType<typeof miniMqtt5Server> {
  return miniMqtt5Server((packet, send, socket) => {
    if (packet.cmd === 'connect') send({ cmd: 'connack', reasonCode: 0, sessionPresent: false });
    else if (packet.cmd === 'publish') {
      send({ cmd: 'puback', messageId: packet.messageId, reasonCode: 0 });
      if (packet.topic === 'close/reset') socket.resetAndDestroy();
      if (packet.topic === 'close/end') socket.end();
    }
  });
}

test('a reset that reaches the socket behind data, reported by the OS as the end of the stream, is told as ECONNRESET; an end of the peer is not', async () => {
  const server = await closingAfterData();
  const told: string[] = [];
  const before = MqttConnection.onSocketError;
  MqttConnection.onSocketError = (error) => told.push(error.code);
  try {
    for (const how of ['reset', 'end'] as const) {
      told.length = 0;
      const connection = await MqttConnection.open({ url: server.url, token: 't' });
      await connection.publish(`close/${how}`, 'x');
      await connection.whenClosed();
      if (how === 'reset') {
        assert.equal(connection.socketError?.code, 'ECONNRESET');
        assert.deepEqual(told, ['ECONNRESET']);
        assert.match(transportFailure(connection.closedError('the next step')) ?? '', /ECONNRESET/);
      } else {
        // the target ended the session: its answer, never the network's
        assert.equal(connection.socketError, undefined);
        assert.deepEqual(told, []);
        assert.match(connection.describe(), /closed by the target \(no DISCONNECT/);
      }
    }
  } finally {
    MqttConnection.onSocketError = before;
    server.close();
  }
});

test('a connection the harness ends itself tells no reset when the peer closes after it', async () => {
  const server = await closingAfterData();
  const told: string[] = [];
  const before = MqttConnection.onSocketError;
  MqttConnection.onSocketError = (error) => told.push(error.code);
  try {
    const connection = await MqttConnection.open({ url: server.url, token: 't' });
    await connection.close();
    assert.deepEqual(told, []);
    assert.equal(connection.socketError, undefined);
  } finally {
    MqttConnection.onSocketError = before;
    server.close();
  }
});
