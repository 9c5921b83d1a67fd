/**
 * What the MQTT test clients under test read from `iotc certify`'s environment, the fault they plant, and the
 * wrong-user-name CONNECT both plant for the token requirement (refused by the reference, then the client goes on).
 */
import { MqttConnection, MqttConnectRefusedError } from '../../simulators/device/mqtt-connection';

export const url = process.env.IOTC_CERTIFY_MQTT_URL ?? '';
export const token = process.env.IOTC_CERTIFY_TOKEN ?? '';
export const protocolVersion = process.env.IOTC_CERTIFY_MQTT_VERSION === '5' ? 5 : 4;
export const fault = process.env.IOTC_TEST_CLIENT_FAULT ?? '';
/** Bound of a client's waits for the certification's steps (a hang guard, not a measurement). */
export const STEP_WAIT_MS = 60_000;

/** A CONNECT with the token as password and another user name; its refusal is expected. */
export async function connectWithWrongUserName(userName: string): Promise<void> {
  await MqttConnection.open({ url, token: userName, password: token, protocolVersion }).then(
    (connection) => connection.close(),
    (error: unknown) => {
      if (!(error instanceof MqttConnectRefusedError)) throw error;
    },
  );
}
