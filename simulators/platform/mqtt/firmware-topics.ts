/**
 * MQTT firmware download (docs/reference/platform-facts.md §4.3, ThingsBoard's
 * MqttTransportHandler.getOtaPackageCallback): PUBLISH v2/fw/request/{requestId}/chunk/{n} with the
 * chunk size as decimal text (empty = the size given earlier for that request, else the whole file)
 * → PUBACK, then the bytes on v2/fw/response/{requestId}/chunk/{n}, sent whether or not the device
 * subscribed (QoS 1 then). The package is looked up once per request id. Without a package with
 * data: the status text (NOT_FOUND) on v2/fw/error, no PUBACK, then the session ends (MQTT 5
 * DISCONNECT 0x83), as ThingsBoard. v2/sw/... asks for a software package, which the reference
 * never holds.
 */
import { type StepFaults, withFaults } from '../../../faults/steps';
import { type OtaKind, otaChunkRequest, otaTopic } from '../../../schemas/ota-mqtt';
import { firmwareChunk } from '../core/firmware';
import { MAX_PACKET_BYTES } from './limits';
import { REASON } from './reason-codes';
import type { MqttSession } from './session';

const FIRMWARE_ERROR_TOPIC = otaTopic('error', { kind: 'fw' });

/** The named step of a chunk request: its size (0 = the whole file). */
const CHUNK_STEPS = {
  /** The size the request gives, else the one given earlier for its request id, else 0. */
  size: (requested: number, earlier: number | undefined): number =>
    requested > 0 ? requested : (earlier ?? 0),
};

/** Its planted fault (faults/catalogue/mqtt-device-api.ts), a wrapper of that step. */
const CHUNK_FAULTS: StepFaults<typeof CHUNK_STEPS> = {
  'MQTT-DEV-FW-01:chunk-size-ignored': { size: () => () => 0 },
};

/**
 * Serves the topic when it is an OTA chunk request (answers true). A failure ends the session, so
 * the PUBACK publish.ts would send is not written.
 */
export function handleOtaRequest(session: MqttSession, topic: string, text: string): boolean {
  const request = otaChunkRequest(topic);
  if (!request) return false;
  const { kind, id: requestId, chunk } = request;
  const state = session.ota;
  const requested = text.trim() === '' ? 0 : Number.parseInt(text, 10);
  if (Number.isNaN(requested) || requested < 0) return fail(session, 'INVALID_CHUNK_SIZE');
  if (requested > 0) state.chunkSizes.set(requestId, requested);
  const size = withFaults(CHUNK_STEPS, CHUNK_FAULTS).size(
    requested,
    state.chunkSizes.get(requestId),
  );
  // ThingsBoard refuses a chunk larger than its MQTT payload limit
  if (size > MAX_PACKET_BYTES) return fail(session, 'PAYLOAD_TOO_LARGE');
  const { core } = session.context;
  // the package found by a request's first chunk serves its later chunks
  let data = state.packages.get(requestId);
  if (data === undefined) {
    data = (kind === 'fw' ? core.firmwareOf(session.device!) : undefined)?.data ?? undefined;
    if (!data) return fail(session, 'NOT_FOUND');
    state.packages.set(requestId, data);
  }
  const bytes = data;
  // after the PUBACK (publish.ts sends it when this returns), as ThingsBoard's sendOtaPackage
  setImmediate(() =>
    session.publish(
      otaTopic('chunkResponse', { kind: kind satisfies OtaKind, id: requestId, chunk }),
      firmwareChunk(bytes, size, chunk),
      {
        always: true,
      },
    ),
  );
  return true;
}

function fail(session: MqttSession, status: string): true {
  session.publish(FIRMWARE_ERROR_TOPIC, status, { always: true });
  session.end(REASON.IMPLEMENTATION_SPECIFIC_ERROR);
  return true;
}
