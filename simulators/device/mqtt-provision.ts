/**
 * Provisioning over MQTT as ThingsBoard's Python SDK does it (ProvisionClient in
 * tb_device_mqtt.py): MQTT 3.1.1 with the user name `provision`, SUBSCRIBE `/provision/response`
 * (QoS 0), PUBLISH the request on `/provision/request` (QoS 0), then the first answer; the
 * connection is closed afterwards.
 */
import { PROVISION_MQTT_API, PROVISION_MQTT_USER } from '../../schemas/provision-mqtt';
import { MqttConnection, type MqttConnectionOptions } from './mqtt-connection';

const REQUEST_TOPIC = PROVISION_MQTT_API.request.topic;
const RESPONSE_TOPIC = PROVISION_MQTT_API.response.topic;

/** The platform's answer as text, or undefined when none came within `timeoutMs`. */
export async function provisionOverMqtt(
  options: Omit<MqttConnectionOptions, 'token'>,
  requestText: string,
  timeoutMs: number,
): Promise<string | undefined> {
  const connection = await MqttConnection.open({
    protocolVersion: 4,
    ...options,
    token: PROVISION_MQTT_USER,
  });
  try {
    await connection.subscribe([RESPONSE_TOPIC], 0);
    const answered = connection.nextMessage(RESPONSE_TOPIC, timeoutMs);
    await connection.publish(REQUEST_TOPIC, requestText, 0);
    return (await answered)?.payload.toString('utf8');
  } finally {
    await connection.close();
  }
}
