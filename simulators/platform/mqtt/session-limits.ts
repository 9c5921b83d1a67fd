/**
 * The answer to the client-side RPC getSessionLimits, given by ThingsBoard's MQTT transport itself
 * (MqttTransportHandler.onGetSessionLimitsRpc, docs/reference/platform-facts.md §4.3): the payload
 * and in-flight limits and the tenant profile's transport rate limits, each a
 * "capacity:seconds,..." string or null when not set, as the default tenant profile leaves them
 * (the reference enforces none). A gateway's rateLimits are those of its devices' traffic,
 * gatewayRateLimits its own session's.
 */
import { MAX_INFLIGHT_MESSAGES, MAX_PACKET_BYTES } from './limits';
import type { MqttSession } from './session';

export const SESSION_LIMITS_METHOD = 'getSessionLimits';

interface SessionRateLimits {
  messages: string | null;
  telemetryMessages: string | null;
  telemetryDataPoints: string | null;
}

const NO_RATE_LIMITS: SessionRateLimits = {
  messages: null,
  telemetryMessages: null,
  telemetryDataPoints: null,
};

export function sessionLimits(session: MqttSession): Record<string, unknown> {
  const limits: Record<string, unknown> = {
    maxPayloadSize: MAX_PACKET_BYTES,
    maxInflightMessages: MAX_INFLIGHT_MESSAGES,
    rateLimits: NO_RATE_LIMITS,
  };
  if (session.gateway) limits.gatewayRateLimits = NO_RATE_LIMITS;
  return limits;
}
