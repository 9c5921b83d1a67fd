/**
 * The MQTT transport's limits, as ThingsBoard's defaults (docs/reference/platform-facts.md §4.1);
 * getSessionLimits reports them.
 */

/** Packets over this size fail (ThingsBoard's NETTY_MAX_PAYLOAD_SIZE). */
export const MAX_PACKET_BYTES = 65536;

/**
 * Messages queued before the connect completes (MQTT_MSG_QUEUE_SIZE_PER_DEVICE_LIMIT), reported as
 * maxInflightMessages.
 */
export const MAX_INFLIGHT_MESSAGES = 100;
