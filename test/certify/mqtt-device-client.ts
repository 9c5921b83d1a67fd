/**
 * A client under test for `iotc certify device --transport mqtt`: iotc's own MQTT device driver
 * doing what a device does (subscriptions to shared-attribute updates and RPC requests, telemetry
 * in the object and timestamped forms, client attributes, an attribute request, the client-side RPC
 * getSessionLimits, the answer to the certification's two-way RPC), then ending.
 * IOTC_TEST_CLIENT_FAULT plants one fault, each breaking exactly one device requirement:
 * - user (MQTT-DEV-01): a first CONNECT with the token as password and another user name (refused),
 *   then the right one;
 * - speaks-5 (MQTT-DEV-01): every CONNECT is MQTT 5 whatever IOTC_CERTIFY_MQTT_VERSION asks;
 * - topic (MQTT-DEV-02): a last telemetry publish on v1/devices/me/telemetries;
 * - shape (MQTT-DEV-03): a last client-attributes publish is an array, not an object;
 * - seconds (MQTT-DEV-04): the timestamped telemetry's ts is in seconds;
 * - ts-string (MQTT-DEV-03): a last timestamped telemetry publish whose ts is a string of
 *   milliseconds;
 * - id-not-integer (MQTT-DEV-06): a last attribute request under the id abc;
 * - subscribe-late (MQTT-DEV-05): an attribute request before any subscription to the responses;
 * - request-id (MQTT-DEV-06): a second attribute request reusing the first one's id;
 * - wrong-id (MQTT-DEV-07): the RPC reply goes to another id than the request's;
 * - late (MQTT-DEV-08): the RPC reply is sent IOTC_TEST_CLIENT_LATE_MS after the request arrived;
 * - qos2 (MQTT-DEV-09): the subscription to the client-side RPC answers asks QoS 2;
 * - duration-string (MQTT-DEV-10): a last claim whose durationMs is a string;
 * - provision-no-secret (MQTT-DEV-11): the provisioning request has no provisionDeviceSecret;
 * - reply-not-json (MQTT-DEV-12): the RPC reply's payload is the text pong;
 * - rpc-not-json (MQTT-DEV-13): a last client-side RPC whose payload is the text getCurrentTime;
 * - second-connection (CLI-BEH-05): a second connection with the token while the first is in use.
 * The clean client also provisions itself first, on a connection of its own with the user name
 * provision (with a key the platform does not know: the request is judged, not the answer), and
 * claims: each action a requirement binds.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { MqttConnection, type Qos } from '../../simulators/device/mqtt-connection';
import { DEVICE_TOPICS, MqttDevice } from '../../simulators/device/mqtt-device';
import {
  STEP_WAIT_MS,
  answerDeviceRpc,
  connectWithWrongUserName,
  fault,
  protocolVersion,
  tls,
  token,
  url,
} from './mqtt-client-environment';

/**
 * The device's whole certification run (mqtt-tls-client.ts and mqtt-long-client.ts run it too, then
 * do more).
 */
export async function main(): Promise<void> {
  if (!url || !token) throw new Error('IOTC_CERTIFY_MQTT_URL and IOTC_CERTIFY_TOKEN must be set');
  if (fault === 'user') await connectWithWrongUserName('device');
  await provisionFirst();
  // speaks-5: MQTT 5 whatever was asked, as the Python SDK does
  const device = await MqttDevice.connect({
    url,
    token,
    protocolVersion: fault === 'speaks-5' ? 5 : protocolVersion,
    ...(tls ? { tls } : {}),
  });
  try {
    const { connection } = device;
    const updated = new Promise<void>((resolve) => {
      void device.onSharedAttributes(() => resolve());
    });
    const answered = answerDeviceRpc(connection, {
      wrongId: fault === 'wrong-id',
      late: fault === 'late',
      notJson: fault === 'reply-not-json',
    });
    await connection.subscribe([DEVICE_TOPICS.rpcRequest]);
    if (fault === 'qos2') await connection.subscribe([DEVICE_TOPICS.rpcResponses], 2 as Qos);
    await device.sendTelemetry({ temperature: 21.5 });
    const now = Date.now();
    await device.sendTelemetry({
      ts: fault === 'seconds' ? Math.floor(now / 1000) : now,
      values: { humidity: 40 },
    });
    await device.sendAttributes({ firmwareVersion: '1.0.0' });
    if (fault === 'subscribe-late')
      await connection.publish(DEVICE_TOPICS.attributesRequest(1000), '{"sharedKeys":"a"}');
    // the driver subscribes to the responses, then asks under id 1
    await device.requestAttributes({ clientKeys: ['firmwareVersion'] });
    if (fault === 'request-id')
      await connection.publish(
        DEVICE_TOPICS.attributesRequest(1),
        '{"clientKeys":"firmwareVersion"}',
      );
    await device.sessionLimits();
    await connection.publish(
      DEVICE_TOPICS.claim,
      JSON.stringify({ secretKey: 's', durationMs: 60000 }),
    );
    // last of the clean run's actions: the platform takes the first connection's session over
    if (fault === 'second-connection') {
      // a second connection with the same token while the first is in use
      const second = await MqttDevice.connect({
        url,
        token,
        protocolVersion,
        ...(tls ? { tls } : {}),
      });
      await second.sendTelemetry({ fromSecond: true });
      await device.sendTelemetry({ fromFirst: true });
      await second.close();
    }
    // unref'd: the guard must not keep the client running once both steps have come
    await Promise.race([
      Promise.all([updated, answered]),
      sleep(STEP_WAIT_MS, undefined, { ref: false }),
    ]);
    // a reference on MQTT 3.1.1 closes the connection on an unknown topic or a malformed payload:
    // those faults come last
    if (fault === 'topic')
      await connection.publish('v1/devices/me/telemetries', '{"pressure":1013}');
    if (fault === 'shape') await device.sendAttributes(['firmwareVersion', '1.0.0']);
    if (fault === 'ts-string')
      await connection.publish(
        DEVICE_TOPICS.telemetry,
        JSON.stringify({ ts: String(Date.now()), values: { pressure: 1013 } }),
      );
    if (fault === 'id-not-integer')
      await connection.publish(
        'v1/devices/me/attributes/request/abc',
        '{"clientKeys":"firmwareVersion"}',
      );
    if (fault === 'duration-string')
      await connection.publish(
        DEVICE_TOPICS.claim,
        JSON.stringify({ secretKey: 's', durationMs: '60000' }),
      );
    if (fault === 'rpc-not-json')
      await connection.publish(DEVICE_TOPICS.rpcRequestOut(1000), 'getCurrentTime');
  } finally {
    await device.close();
  }
}

/**
 * Provisioning as a device does before it has a token: a connection of its own, user name
 * provision.
 */
async function provisionFirst(): Promise<void> {
  const connection = await MqttConnection.open({
    url,
    token: 'provision',
    protocolVersion,
    ...(tls ? { tls } : {}),
  });
  try {
    const answered = connection.nextMessage('/provision/response', 5000).catch(() => undefined);
    await connection.publish(
      '/provision/request',
      JSON.stringify({
        deviceName: 'iotc-certify-provisioned',
        provisionDeviceKey: 'iotc-certify-key',
        ...(fault === 'provision-no-secret'
          ? {}
          : { provisionDeviceSecret: 'iotc-certify-secret' }),
      }),
    );
    await answered;
  } finally {
    await connection.close();
  }
}

if (require.main === module)
  main().catch((error: unknown) => {
    console.error(`test client: ${(error as Error).message}`);
    process.exitCode = 1;
  });
