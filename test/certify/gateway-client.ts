/**
 * A client under test for `iotc certify gateway`: iotc's own gateway driver doing what a gateway does (subscriptions
 * to its downlink topics, the connect of the device named in IOTC_CERTIFY_DEVICE after which it waits for the
 * PUBACK, telemetry with and without ts, client attributes, an attribute request, a claim, the answer to the
 * certification's two-way RPC, the disconnect), then ending. IOTC_TEST_CLIENT_FAULT plants one fault, each breaking
 * exactly one gateway requirement:
 * - user (GW-CLI-01): a first CONNECT with the token as password and another user name (refused), then the right one;
 * - shape (GW-CLI-02): a last telemetry publish whose entry has no values;
 * - seconds (GW-CLI-03): the telemetry's ts is in seconds;
 * - subscribe-late (GW-RULE-01): a first attribute request comes before the subscription to the responses;
 * - request-id (GW-CLI-04): a second attribute request reuses the first one's id;
 * - wrong-id (GW-RPC-03): the RPC reply carries another id than the request's;
 * - late (GW-CLI-05): the RPC reply is sent IOTC_TEST_CLIENT_LATE_MS after the request arrived;
 * - claim-stranger (GW-RULE-03-CLAIM): a claim for a device the gateway never connected;
 * - no-wait (GW-RULE-04-WAIT): telemetry for the device right after its connect, without waiting for the PUBACK;
 * - qos2 (GW-CLI-06): the subscription to the attribute responses asks QoS 2.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Qos } from '../../simulators/device/mqtt-connection';
import { GATEWAY_TOPICS, MqttGateway } from '../../simulators/gateway/mqtt-gateway';
import {
  STEP_WAIT_MS,
  connectWithWrongUserName,
  fault,
  protocolVersion,
  token,
  url,
} from './mqtt-client-environment';

const device = process.env.IOTC_CERTIFY_DEVICE ?? '';

async function main(): Promise<void> {
  if (!url || !token || !device)
    throw new Error(
      'IOTC_CERTIFY_MQTT_URL, IOTC_CERTIFY_TOKEN and IOTC_CERTIFY_DEVICE must be set',
    );
  if (fault === 'user') await connectWithWrongUserName('gateway');
  const gateway = await MqttGateway.connect({ url, token, protocolVersion, subscribe: false });
  try {
    const { connection } = gateway;
    const responses = () =>
      connection.subscribe([GATEWAY_TOPICS.attributesResponse], fault === 'qos2' ? (2 as Qos) : 1);
    await connection.subscribe([GATEWAY_TOPICS.attributes, GATEWAY_TOPICS.rpc]);
    if (fault === 'subscribe-late')
      await gateway.publish(GATEWAY_TOPICS.attributesRequest, {
        json: { id: 1000, device, shared: [] },
      });
    await responses();
    const updated = gateway.nextAttributeUpdate(device, STEP_WAIT_MS);
    const answered = answerRpc(gateway);
    if (fault === 'no-wait') {
      void gateway.connectDevice(device);
      await gateway.sendTelemetry({ [device]: [{ values: { early: true } }] });
    } else await gateway.connectDevice(device);
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
    // unref'd: the guard must not keep the client running once both steps have come
    await Promise.race([
      Promise.all([updated, answered]),
      sleep(STEP_WAIT_MS, undefined, { ref: false }),
    ]);
    await gateway.disconnectDevice(device);
    // a reference on MQTT 3.1.1 closes the connection on a malformed payload: the fault comes last
    if (fault === 'shape')
      await gateway.publish(GATEWAY_TOPICS.telemetry, { json: { [device]: [{ ts: now }] } });
  } finally {
    await gateway.close();
  }
}

/** Answers the certification's RPC for the device and resolves once it has. */
function answerRpc(gateway: MqttGateway): Promise<void> {
  return new Promise((resolve) => {
    const remove = gateway.onRpcRequest((request) => {
      if (request.device !== device) return;
      remove();
      void (async () => {
        if (fault === 'late') await sleep(Number(process.env.IOTC_TEST_CLIENT_LATE_MS ?? 0));
        await gateway.replyRpc(device, fault === 'wrong-id' ? request.id + 1000 : request.id, {
          pong: request.method,
        });
        resolve();
      })();
    });
  });
}

main().catch((error: unknown) => {
  console.error(`test client: ${(error as Error).message}`);
  process.exitCode = 1;
});
