/**
 * What the MQTT test clients under test read from `iotc certify`'s environment, the fault they
 * plant, the wrong-user-name CONNECT both plant for the token requirement (refused by the
 * reference, then the client goes on), and the answer to a server-side RPC on the device API (the
 * MQTT device's, and the gateway's own as a device).
 */
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { MqttConnection, MqttConnectRefusedError } from '../../simulators/device/mqtt-connection';
import { DEVICE_TOPICS } from '../../simulators/device/mqtt-device';

export const url = process.env.IOTC_CERTIFY_MQTT_URL ?? '';
export const token = process.env.IOTC_CERTIFY_TOKEN ?? '';
export const protocolVersion = process.env.IOTC_CERTIFY_MQTT_VERSION === '5' ? 5 : 4;
export const fault = process.env.IOTC_TEST_CLIENT_FAULT ?? '';
/**
 * `iotc certify --tls`: the CA the client trusts (IOTC_CERTIFY_CA_FILE), verified as any careful
 * client does.
 */
export const caFile = process.env.IOTC_CERTIFY_CA_FILE;
export const tls = caFile ? { ca: readFileSync(caFile, 'utf8') } : undefined;
/** Bound of a client's waits for the certification's steps (a hang guard, not a measurement). */
export const STEP_WAIT_MS = 60_000;

/** A CONNECT with the token as password and another user name; its refusal is expected. */
export async function connectWithWrongUserName(userName: string): Promise<void> {
  await MqttConnection.open({
    url,
    token: userName,
    password: token,
    protocolVersion,
    ...(tls ? { tls } : {}),
  }).then(
    (connection) => connection.close(),
    (error: unknown) => {
      if (!(error instanceof MqttConnectRefusedError)) throw error;
    },
  );
}

/**
 * Answers the first server-side RPC request on v1/devices/me/rpc/request/{id} (the caller
 * subscribes) and resolves once it has; the planted faults: the reply under another id,
 * IOTC_TEST_CLIENT_LATE_MS after the request arrived, or a payload that is not JSON.
 */
export function answerDeviceRpc(
  connection: MqttConnection,
  planted: { wrongId: boolean; late: boolean; notJson?: boolean },
): Promise<void> {
  const prefix = 'v1/devices/me/rpc/request/';
  return new Promise((resolve) => {
    const remove = connection.onMessage(
      (topic) => topic.startsWith(prefix),
      (message) => {
        remove();
        const id = Number(message.topic.slice(prefix.length));
        const { method } = JSON.parse(message.payload.toString('utf8')) as { method: string };
        void (async () => {
          if (planted.late) await sleep(Number(process.env.IOTC_TEST_CLIENT_LATE_MS ?? 0));
          await connection.publish(
            DEVICE_TOPICS.rpcResponse(planted.wrongId ? id + 1000 : id),
            planted.notJson ? 'pong' : JSON.stringify({ pong: method }),
          );
          resolve();
        })();
      },
    );
  });
}
