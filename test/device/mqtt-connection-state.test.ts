/**
 * What an MQTT connection says about itself when a step's expected effect never came (an RPC that
 * expired undelivered): open and subscribed, its subscription refused, closed by the target with
 * the DISCONNECT's reason, or broken by the network. And a device driver whose subscription the
 * target refuses fails at once, naming the SUBACK code, instead of waiting for what never comes.
 * Against the reference platform (a session taken over by a second connection with the same token)
 * and a minimal MQTT 5 server that refuses every subscription (a broken one: mqtt-reset.test.ts).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startPlatform, type RunningPlatform } from '../../simulators/platform';
import { MqttConnection } from '../../simulators/device/mqtt-connection';
import { DEVICE_TOPICS, MqttDevice } from '../../simulators/device/mqtt-device';
import { miniMqtt5Server } from '../support/mini-mqtt5-server';

let platform: RunningPlatform;

before(async () => {
  platform = await startPlatform({ httpPort: 0, mqttPort: 0 });
});

after(async () => {
  await platform.close();
});

/** An MQTT 5 server that accepts every CONNECT and refuses every filter (SUBACK 0x87). */
function refusingServer(): ReturnType<typeof miniMqtt5Server> {
  return miniMqtt5Server((packet, send) => {
    if (packet.cmd === 'connect') send({ cmd: 'connack', reasonCode: 0, sessionPresent: false });
    else if (packet.cmd === 'subscribe')
      send({
        cmd: 'suback',
        messageId: packet.messageId,
        granted: packet.subscriptions.map(() => 0x87),
      });
  });
}

test('open and subscribed, then taken over: the connection names its SUBACK and the DISCONNECT that ended it', async () => {
  const options = { url: platform.mqttUrl!, token: platform.demo.deviceToken, ackTimeoutMs: 5000 };
  const device = await MqttDevice.connect(options);
  let newer: MqttConnection | undefined;
  try {
    const remove = await device.handleRpc(() => undefined);
    remove();
    assert.equal(
      device.connection.describe(DEVICE_TOPICS.rpcRequest),
      `the MQTT connection was open; subscribed to ${DEVICE_TOPICS.rpcRequest} (QoS 1 granted)`,
    );
    assert.match(
      device.connection.describe(DEVICE_TOPICS.attributes),
      /open; no SUBACK for v1\/devices\/me\/attributes on it$/,
    );
    const since = Date.now();
    const closed = new Promise((resolve) =>
      device.connection.client.once('close', () => resolve(undefined)),
    );
    // a second connection with the same token takes the session over (DISCONNECT 0x8E)
    newer = await MqttConnection.open(options);
    await closed;
    const state = device.connection.describe(DEVICE_TOPICS.rpcRequest, since);
    assert.match(
      state,
      /^the MQTT connection was closed by the target with DISCONNECT 0x8e \d+ ms after the step began; subscribed to /,
    );
    assert.equal(device.connection.socketError, undefined, 'the target ended it, not the network');
  } finally {
    await newer?.close();
    await device.close();
  }
});

test('a refused subscription fails the driver at once with its SUBACK code, and the connection says it was refused', async () => {
  const server = await refusingServer();
  const device = await MqttDevice.connect({ url: server.url, token: 't', ackTimeoutMs: 5000 });
  try {
    await assert.rejects(
      device.handleRpc(() => undefined),
      /the target refused the subscription to v1\/devices\/me\/rpc\/request\/\+ \(SUBACK code 0x87\)/,
    );
    assert.match(
      device.connection.describe(DEVICE_TOPICS.rpcRequest),
      /open; its SUBSCRIBE to v1\/devices\/me\/rpc\/request\/\+ was refused \(code 0x87\)$/,
    );
  } finally {
    await device.close();
    server.close();
  }
});
