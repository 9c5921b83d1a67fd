/**
 * MQTT provisioning (docs/reference/platform-facts.md §6, ThingsBoard's
 * MqttTransportHandler.processProvisionSessionMsg): a CONNECT with user name or client id
 * `provision` opens a session without authentication that serves only PUBLISH /provision/request
 * (no SUBSCRIBE needed): PUBACK, then the same status document as POST /api/v1/provision on
 * /provision/response; the platform closes the session 60 s after answering. Another topic: PUBACK
 * 0x90 and DISCONNECT 0x90 (MQTT 3.1.1: PUBACK, then close). SUBSCRIBE grants only
 * /provision/response.
 */
import { type StepFaults, withFaults } from '../../../faults/steps';
import { PROVISION_MQTT_API, PROVISION_MQTT_USER } from '../../../schemas/provision-mqtt';
import { PlatformError } from '../core/errors';
import { provisionAnswer } from '../core/provision-answer';
import { PublishFailure, REASON } from './reason-codes';
import type { MqttSession } from './session';

export const PROVISION_USER = PROVISION_MQTT_USER;
const PROVISION_REQUEST_TOPIC = PROVISION_MQTT_API.request.topic;
export const PROVISION_RESPONSE_TOPIC = PROVISION_MQTT_API.response.topic;
/** ThingsBoard schedules the close of a provisioning session 60 s after its answer. */
const CLOSE_AFTER_ANSWER_MS = 60_000;

/** The named step of answering: the status document as the HTTP API answers it. */
const PROVISION_STEPS = {
  answer: (answer: Record<string, string>): Record<string, string> => answer,
};

/** Its planted fault (faults/catalogue/mqtt-device-api.ts), a wrapper of that step. */
const PROVISION_FAULTS: StepFaults<typeof PROVISION_STEPS> = {
  'MQTT-DEV-PROV-01:status-only': {
    answer: (step) => (answer) => {
      const { credentialsValue: _dropped, ...rest } = step(answer);
      return rest;
    },
  },
};

export function handleProvisionPublish(session: MqttSession, topic: string, payload: Buffer): void {
  if (topic !== PROVISION_REQUEST_TOPIC)
    throw new PublishFailure(
      REASON.TOPIC_NAME_INVALID,
      `a provisioning session publishes only to ${PROVISION_REQUEST_TOPIC}`,
      false,
      REASON.TOPIC_NAME_INVALID,
      true,
    );
  let answer: Record<string, string>;
  try {
    answer = provisionAnswer(
      session.context.core,
      payload.toString('utf8'),
      session.context.quirks,
    );
  } catch (error) {
    // quirks mode: a missing key field throws inside ThingsBoard's converter (PUBACK 0x83 and
    // DISCONNECT 0x83)
    if (error instanceof PlatformError && error.status === 500)
      throw new PublishFailure(
        REASON.IMPLEMENTATION_SPECIFIC_ERROR,
        error.message,
        true,
        REASON.IMPLEMENTATION_SPECIFIC_ERROR,
      );
    throw error;
  }
  answer = withFaults(PROVISION_STEPS, PROVISION_FAULTS).answer(answer);
  // after the PUBACK (publish.ts sends it when this returns), as ThingsBoard's
  // DeviceProvisionCallback
  setImmediate(() => {
    session.publish(PROVISION_RESPONSE_TOPIC, JSON.stringify(answer), { always: true });
    const timer = setTimeout(() => session.end(), CLOSE_AFTER_ANSWER_MS);
    timer.unref();
    session.onEnd('provision-close', () => clearTimeout(timer));
  });
}
