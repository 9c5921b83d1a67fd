/**
 * MQTT 5 reason codes the reference uses, with ThingsBoard's choices
 * (docs/reference/platform-facts.md §4.7).
 */
import { IotcError } from '../../../lib/errors';
export const REASON = {
  SUCCESS: 0x00,
  UNSPECIFIED_ERROR: 0x80,
  MALFORMED_PACKET: 0x81,
  PROTOCOL_ERROR: 0x82,
  IMPLEMENTATION_SPECIFIC_ERROR: 0x83,
  BAD_USER_NAME_OR_PASSWORD: 0x86,
  NOT_AUTHORIZED: 0x87,
  SERVER_SHUTTING_DOWN: 0x8b,
  KEEP_ALIVE_TIMEOUT: 0x8d,
  SESSION_TAKEN_OVER: 0x8e,
  TOPIC_FILTER_INVALID: 0x8f,
  TOPIC_NAME_INVALID: 0x90,
  QUOTA_EXCEEDED: 0x97,
  ADMINISTRATIVE_ACTION: 0x98,
  PAYLOAD_FORMAT_INVALID: 0x99,
  QOS_NOT_SUPPORTED: 0x9b,
} as const;

/** MQTT 3.1.1 CONNACK return codes. */
export const CONNACK_V3 = {
  ACCEPTED: 0,
  IDENTIFIER_REJECTED: 2,
  BAD_USER_NAME_OR_PASSWORD: 4,
  NOT_AUTHORIZED: 5,
} as const;

/** MQTT 3.1.1 SUBACK failure. */
export const SUBACK_FAILURE_V3 = 0x80;

/**
 * How a publish failed. `reasonCode` goes into an MQTT 5 PUBACK; MQTT 3.1.1 PUBACKs carry no code,
 * so `closeOnV3` says whether a 3.1.1 session is closed instead (ThingsBoard closes on malformed
 * payloads and transport errors, and answers a plain PUBACK for the others:
 * docs/reference/platform-facts.md §4.4 and §4.6).
 */
export class PublishFailure extends IotcError {
  readonly code = 'IOTC_MQTT_PUBLISH_FAILED';
  constructor(
    readonly reasonCode: number,
    message: string,
    readonly closeOnV3: boolean,
    /** MQTT 5: end the session with this DISCONNECT reason after the PUBACK. */
    readonly disconnectV5?: number,
    /** MQTT 3.1.1: a plain PUBACK before the close (ThingsBoard acknowledges, then closes). */
    readonly pubackBeforeCloseOnV3 = false,
  ) {
    super(message);
  }

  static payloadFormat(message: string): PublishFailure {
    return new PublishFailure(REASON.PAYLOAD_FORMAT_INVALID, message, true);
  }

  static quotaExceeded(message: string): PublishFailure {
    return new PublishFailure(REASON.QUOTA_EXCEEDED, message, false);
  }

  static topicName(topic: string): PublishFailure {
    return new PublishFailure(REASON.TOPIC_NAME_INVALID, `unsupported topic ${topic}`, false);
  }

  static notAuthorized(message: string): PublishFailure {
    return new PublishFailure(REASON.NOT_AUTHORIZED, message, false);
  }

  static unspecified(message: string): PublishFailure {
    return new PublishFailure(REASON.UNSPECIFIED_ERROR, message, true);
  }
}

/**
 * Not a failure: the platform leaves the publish without any acknowledgement (quirk
 * emptyTelemetryUnansweredMs, simulators/platform/quirks.ts). handlePublish sends no PUBACK and
 * keeps the session.
 */
export class PublishUnanswered extends IotcError {
  readonly code = 'IOTC_MQTT_PUBLISH_UNANSWERED';
}
