/**
 * A gateway under test for `iotc certify gateway --duration <ms>`: iotc's MQTT gateway
 * (gateway-client.ts), then what a gateway does for the rest of its life, until it is ended, with
 * the reconnect loop of mqtt-long-client.ts: on every accepted connection it subscribes to
 * v1/gateway/attributes and v1/gateway/rpc, connects its device and waits for that connect's PUBACK
 * (GW-RULE-04-WAIT), sends again with DUP the QoS 1 PUBLISH left unacknowledged, then QoS 1
 * telemetry for the device every 500 ms; when the connection drops or a CONNECT is not answered, a
 * reconnect after an exponential backoff with jitter. IOTC_TEST_CLIENT_FAULT:
 * - gateway-no-backoff (CLI-BEH-01): the reconnect delay does not grow (about 450 ms, jitter kept);
 * - gateway-no-jitter (CLI-BEH-02): the reconnect delay doubles exactly (300, 600, 1200 ... ms);
 * - gateway-no-dup (CLI-BEH-03): the unacknowledged PUBLISH is sent again without the DUP flag;
 * - gateway-no-ping (CLI-BEH-04): once reconnected and its device connected again, the gateway
 *   sends nothing more.
 */
import { GATEWAY_TOPICS } from '../../simulators/gateway/mqtt-gateway';
import { main } from './gateway-client';
import { fault } from './mqtt-client-environment';
import { live, packetId } from './mqtt-long-client';

const device = process.env.IOTC_CERTIFY_DEVICE ?? '';

main()
  .then(() =>
    live(
      {
        noBackoff: fault === 'gateway-no-backoff',
        noJitter: fault === 'gateway-no-jitter',
        noDup: fault === 'gateway-no-dup',
        noPing: fault === 'gateway-no-ping',
      },
      (count) => ({
        topic: GATEWAY_TOPICS.telemetry,
        payload: JSON.stringify({ [device]: [{ ts: Date.now(), values: { beat: count } }] }),
      }),
      // a clean session: subscribed first, then the device connected again, its data only after the
      // PUBACK
      async (send, next) => {
        const subscribed = next('suback');
        send({
          cmd: 'subscribe',
          messageId: packetId(),
          subscriptions: [
            { topic: GATEWAY_TOPICS.attributes, qos: 1 },
            { topic: GATEWAY_TOPICS.rpc, qos: 1 },
          ],
        });
        await subscribed;
        const acknowledged = next('puback');
        send({
          cmd: 'publish',
          qos: 1,
          dup: false,
          retain: false,
          messageId: packetId(),
          topic: GATEWAY_TOPICS.connect,
          payload: JSON.stringify({ device }),
        });
        await acknowledged;
      },
    ),
  )
  .catch((error: unknown) => {
    console.error(`test client: ${(error as Error).message}`);
    process.exitCode = 1;
  });
