/**
 * Firmware download over MQTT as ThingsBoard's Python SDK does it (tb_device_mqtt.py
 * get_firmware_update): it subscribes to `v2/fw/response/+` (ThingsBoard refuses that filter and
 * sends the chunks anyway), then publishes `v2/fw/request/{requestId}/chunk/{n}` with the chunk
 * size as decimal text (empty when the size is 0 or larger than the file) and appends each
 * `v2/fw/response/{requestId}/chunk/{n}` until it holds `size` bytes. A message on `v2/fw/error`
 * (the platform then ends the session) or a missing chunk fails the download.
 */
import type { MqttConnection } from './mqtt-connection';
import { IotcError } from '../../lib/errors';
import { OTA_SDK_RESPONSE_FILTER, otaTopic } from '../../schemas/ota-mqtt';

const ERROR_TOPIC = otaTopic('error', { kind: 'fw' });

/** A firmware download over MQTT failed (an answer on v2/fw/error, a missing or short chunk). */
export class FirmwareDownloadError extends IotcError {
  readonly code = 'IOTC_FIRMWARE_DOWNLOAD';
}

interface MqttFirmwareRequest {
  /** The SDK counts its requests from 1. */
  requestId: number;
  /** fw_size, the length of the whole file. */
  size: number;
  /** Bytes per chunk; 0 = the whole file in one answer. */
  chunkSize: number;
  /** How long one chunk may take (a hang guard). */
  chunkTimeoutMs: number;
}

/** The chunks as they came, in order. */
export async function downloadFirmwareOverMqtt(
  connection: MqttConnection,
  request: MqttFirmwareRequest,
): Promise<Buffer[]> {
  await connection.subscribe([OTA_SDK_RESPONSE_FILTER]);
  let failure: string | undefined;
  const removeErrorListener = connection.onMessage(ERROR_TOPIC, (message) => {
    failure = message.payload.toString('utf8');
  });
  try {
    const parts: Buffer[] = [];
    let received = 0;
    const payload =
      request.chunkSize === 0 || request.chunkSize > request.size ? '' : String(request.chunkSize);
    for (let chunk = 0; received < request.size; chunk++) {
      const topic = otaTopic('chunkResponse', { id: request.requestId, chunk });
      const answered = connection.nextMessage(topic, request.chunkTimeoutMs);
      const closed = connection.whenClosed().then(() => 'closed' as const);
      const sent = await connection.publish(
        otaTopic('chunkRequest', { id: request.requestId, chunk }),
        payload,
        1,
      );
      // a connection that closes (a reset on the path, or the target ending the session) ends the
      // wait for the chunk at once, and the error says which (its cause is the socket error, when
      // there was one)
      const message = sent.result === 'closed' ? 'closed' : await Promise.race([answered, closed]);
      if (failure !== undefined) throw new FirmwareDownloadError(`${ERROR_TOPIC}: ${failure}`);
      if (message === 'closed') {
        const error = connection.closedError(topic);
        throw new FirmwareDownloadError(error.message, { cause: error });
      }
      if (!message)
        throw new FirmwareDownloadError(
          `no ${topic} within ${request.chunkTimeoutMs} ms (the connection is still open)`,
        );
      if (message.payload.length === 0)
        throw new FirmwareDownloadError(
          `${topic} is empty after ${received} of ${request.size} bytes`,
        );
      parts.push(message.payload);
      received += message.payload.length;
    }
    return parts;
  } finally {
    removeErrorListener();
  }
}
