/**
 * A client under test for `iotc certify gateway`: iotc's own gateway driver doing what a gateway
 * does (subscriptions to its downlink topics, the connect of the device named in
 * IOTC_CERTIFY_DEVICE after which it waits for the PUBACK, telemetry with and without ts, client
 * attributes, an attribute request, a claim, the answer to the certification's two-way RPC, the
 * disconnect), then ending. As ThingsBoard's gateways do, it is also a device on the same
 * connection (iotc's MQTT device driver): it takes its own server-side RPCs (and answers the
 * certification's), sends its own telemetry with and without ts and client attributes, requests its
 * own attributes and asks getSessionLimits. IOTC_TEST_GATEWAY_AS_DEVICE=off leaves all of that out:
 * a gateway that never acts as a device. IOTC_TEST_CLIENT_FAULT plants one fault, each breaking
 * exactly one requirement of the gateway certification:
 * - user (GW-CLI-01): a first CONNECT with the token as password and another user name (refused),
 *   then the right one;
 * - speaks-5 (GW-CLI-01): every CONNECT is MQTT 5 whatever IOTC_CERTIFY_MQTT_VERSION asks;
 * - shape (GW-CLI-02): a last telemetry publish whose entry has no values;
 * - seconds (GW-CLI-03): the telemetry's ts is in seconds;
 * - reply-no-device (GW-CLI-02): after its reply, a last second reply to the RPC under the right id
 *   without device;
 * - subscribe-late (GW-RULE-01): a first attribute request comes before the subscription to the
 *   responses;
 * - request-id (GW-CLI-04): a second attribute request reuses the first one's id;
 * - wrong-id (GW-RPC-03): the RPC reply carries another id than the request's;
 * - late (GW-CLI-05): the RPC reply is sent IOTC_TEST_CLIENT_LATE_MS after the request arrived;
 * - claim-stranger (GW-RULE-03-CLAIM): a claim for a device the gateway never connected;
 * - no-wait (GW-RULE-04-WAIT): telemetry for the device right after its connect, without waiting
 *   for the PUBACK;
 * - no-wait-late (GW-RULE-04-WAIT): after its connect, without waiting for the PUBACK, three
 *   telemetry publishes of its own, each after a random pause of up to 300 ms, then an attribute
 *   request for the device: late and by chance (a PUBACK held a fixed 300 ms from the connect came
 *   before the request in most runs, the race issue 28 found);
 * - qos2 (GW-CLI-06): the subscription to the attribute responses asks QoS 2;
 * - unknown-topic (MQTT-DEV-02): a last publish on v1/gateway/telemetries, a topic of neither API;
 * - own-shape (MQTT-DEV-03): a last own telemetry publish whose values are a string;
 * - own-seconds (MQTT-DEV-04): the own timestamped telemetry's ts is in seconds;
 * - own-subscribe-late (MQTT-DEV-05): an own attribute request before the subscription to its
 *   responses;
 * - own-request-id (MQTT-DEV-06): a second own attribute request reuses the first one's id;
 * - own-wrong-id (MQTT-DEV-07): the reply to the own RPC goes to another id than the request's;
 * - own-late (MQTT-DEV-08): the reply to the own RPC is sent IOTC_TEST_CLIENT_LATE_MS after the
 *   request arrived;
 * - second-connection (GW-CLI-07): once the steps are done, telemetry for the device on a second
 *   connection opened while the first stays in use (the device's disconnect follows on the first);
 * - subscribe-updates-late (GW-RULE-01-UPD): v1/gateway/attributes subscribed only after the
 *   device's connect;
 * - disconnect-before-rpc (GW-RULE-03-RPC): once the attribute update came, the device is
 *   disconnected, so the RPC for it expected next finds it not connected;
 * - own-duration-string (MQTT-DEV-10): a last own claim whose durationMs is a string;
 * - own-reply-not-json (MQTT-DEV-12): the reply to the own RPC is the text pong;
 * - own-rpc-not-json (MQTT-DEV-13): a last own client-side RPC whose payload is the text
 *   getCurrentTime.
 * The clean client also claims itself as a device (v1/devices/me/claim).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { MqttConnection, type Qos } from '../../simulators/device/mqtt-connection';
import { DEVICE_TOPICS, MqttDevice } from '../../simulators/device/mqtt-device';
import { GATEWAY_TOPICS, MqttGateway } from '../../simulators/gateway/mqtt-gateway';
import {
  STEP_WAIT_MS,
  answerDeviceRpc,
  connectWithWrongUserName,
  fault,
  protocolVersion,
  token,
  url,
} from './mqtt-client-environment';

const device = process.env.IOTC_CERTIFY_DEVICE ?? '';
const asDevice = process.env.IOTC_TEST_GATEWAY_AS_DEVICE !== 'off';

/** The gateway's whole certification run (gateway-long-client.ts runs it too, then does more). */
export async function main(): Promise<void> {
  if (!url || !token || !device)
    throw new Error(
      'IOTC_CERTIFY_MQTT_URL, IOTC_CERTIFY_TOKEN and IOTC_CERTIFY_DEVICE must be set',
    );
  if (fault === 'user') await connectWithWrongUserName('gateway');
  // speaks-5: MQTT 5 whatever was asked, as the ThingsBoard IoT Gateway and the Python SDK do
  const gateway = await MqttGateway.connect({
    url,
    token,
    protocolVersion: fault === 'speaks-5' ? 5 : protocolVersion,
    subscribe: false,
  });
  try {
    const { connection } = gateway;
    const responses = () =>
      connection.subscribe([GATEWAY_TOPICS.attributesResponse], fault === 'qos2' ? (2 as Qos) : 1);
    await connection.subscribe(
      fault === 'subscribe-updates-late'
        ? [GATEWAY_TOPICS.rpc]
        : [GATEWAY_TOPICS.attributes, GATEWAY_TOPICS.rpc],
    );
    if (fault === 'subscribe-late')
      await gateway.publish(GATEWAY_TOPICS.attributesRequest, {
        json: { id: 1000, device, shared: [] },
      });
    await responses();
    const updated = gateway.nextAttributeUpdate(device, STEP_WAIT_MS);
    const answered = answerRpc(gateway);
    // its own device's RPCs, subscribed before the connect that makes the certification's steps
    // start
    const own = new MqttDevice(connection);
    const ownAnswered = asDevice
      ? answerDeviceRpc(connection, {
          wrongId: fault === 'own-wrong-id',
          late: fault === 'own-late',
          notJson: fault === 'own-reply-not-json',
        })
      : undefined;
    if (asDevice) await connection.subscribe([DEVICE_TOPICS.rpcRequest]);
    if (fault === 'no-wait') {
      void gateway.connectDevice(device);
      await gateway.sendTelemetry({ [device]: [{ values: { early: true } }] });
    } else if (fault === 'no-wait-late') {
      const connected = gateway.connectDevice(device);
      for (let round = 0; round < 3; round++) {
        await sleep(Math.random() * 300);
        await own.sendTelemetry({ uptimeRound: round });
      }
      await gateway.publish(GATEWAY_TOPICS.attributesRequest, {
        json: { id: 2000, device, client: ['firmwareVersion'] },
      });
      await connected;
    } else await gateway.connectDevice(device);
    if (fault === 'subscribe-updates-late') await connection.subscribe([GATEWAY_TOPICS.attributes]);
    const now = Date.now();
    await gateway.sendTelemetry({
      [device]: [
        { ts: fault === 'seconds' ? Math.floor(now / 1000) : now, values: { temperature: 21.5 } },
        { values: { humidity: 40 } },
      ],
    });
    await gateway.sendAttributes({ [device]: { firmwareVersion: '1.0.0' } });
    await gateway.requestAttributes({ device, client: ['firmwareVersion'] });
    if (fault === 'request-id')
      await gateway.publish(GATEWAY_TOPICS.attributesRequest, {
        json: { id: 1, device, client: ['firmwareVersion'] },
      });
    await gateway.claim({
      [fault === 'claim-stranger' ? `${device}-other` : device]: { secretKey: 's' },
    });
    if (asDevice) await actAsDevice(own, now);
    // unref'd: the guard must not keep the client running once the steps have come
    if (fault === 'disconnect-before-rpc') {
      await updated;
      await gateway.disconnectDevice(device);
    }
    await Promise.race([
      Promise.all([updated, answered, ownAnswered]),
      sleep(STEP_WAIT_MS, undefined, { ref: false }),
    ]);
    // last, once the steps are done: the reference keeps one session per device, so a second one
    // earlier would take the RPCs away from the first
    const second =
      fault === 'second-connection'
        ? await MqttConnection.open({ url, token, protocolVersion })
        : undefined;
    await second?.publish(
      GATEWAY_TOPICS.telemetry,
      JSON.stringify({ [device]: [{ values: { second: true } }] }),
    );
    await gateway.disconnectDevice(device);
    await second?.close();
    // a reference on MQTT 3.1.1 closes the connection on a malformed payload: those faults come
    // last
    if (fault === 'shape')
      await gateway.publish(GATEWAY_TOPICS.telemetry, { json: { [device]: [{ ts: now }] } });
    if (fault === 'unknown-topic')
      await gateway.publish('v1/gateway/telemetries', { json: { [device]: [{ values: {} }] } });
    if (fault === 'own-shape') await own.sendTelemetry({ ts: now, values: 'cpu=0.5' });
    if (fault === 'own-duration-string')
      await own.connection.publish(
        DEVICE_TOPICS.claim,
        JSON.stringify({ secretKey: 's', durationMs: '60000' }),
      );
    if (fault === 'own-rpc-not-json')
      await own.connection.publish(DEVICE_TOPICS.rpcRequestOut(1000), 'getCurrentTime');
    if (fault === 'reply-no-device')
      await gateway.publish(GATEWAY_TOPICS.rpc, {
        json: { id: await answered, data: { pong: 'again' } },
      });
  } finally {
    await gateway.close();
  }
}

/**
 * The gateway's own device traffic: telemetry in the object and timestamped forms, attributes,
 * requests.
 */
async function actAsDevice(own: MqttDevice, now: number): Promise<void> {
  await own.sendTelemetry({ connectedDevices: 1 });
  await own.sendTelemetry({
    ts: fault === 'own-seconds' ? Math.floor(now / 1000) : now,
    values: { cpuLoad: 0.5 },
  });
  await own.sendAttributes({ gatewayVersion: '1.0.0' });
  if (fault === 'own-subscribe-late')
    await own.connection.publish(DEVICE_TOPICS.attributesRequest(1000), '{"sharedKeys":"a"}');
  // the driver subscribes to the responses, then asks under id 1
  await own.requestAttributes({ clientKeys: ['gatewayVersion'] });
  if (fault === 'own-request-id')
    await own.connection.publish(
      DEVICE_TOPICS.attributesRequest(1),
      '{"clientKeys":"gatewayVersion"}',
    );
  await own.sessionLimits();
  await own.connection.publish(
    DEVICE_TOPICS.claim,
    JSON.stringify({ secretKey: 's', durationMs: 60000 }),
  );
}

/** Answers the certification's RPC for the device and resolves once it has. */
function answerRpc(gateway: MqttGateway): Promise<number> {
  return new Promise((resolve) => {
    const remove = gateway.onRpcRequest((request) => {
      if (request.device !== device) return;
      remove();
      void (async () => {
        if (fault === 'late') await sleep(Number(process.env.IOTC_TEST_CLIENT_LATE_MS ?? 0));
        await gateway.replyRpc(device, fault === 'wrong-id' ? request.id + 1000 : request.id, {
          pong: request.method,
        });
        resolve(request.id);
      })();
    });
  });
}

if (require.main === module)
  main().catch((error: unknown) => {
    console.error(`test client: ${(error as Error).message}`);
    process.exitCode = 1;
  });
