/**
 * The one TLS handshake deadline of every TLS listener of the simulators (platform MQTTS and HTTPS,
 * the connector, the external API; issue 26 item 5): a TCP connection that does not complete its
 * TLS handshake within this time is closed. Node's own default is 120 s, which lets idle TCP
 * connections to a TLS port pile up by the thousand before any closes (20,000 exhausted the file
 * handles).
 */
const TLS_HANDSHAKE_TIMEOUT_MS = 10_000;

/** TLS server options with the handshake deadline (a value given by the caller wins, for tests). */
export function withHandshakeTimeout<Options extends object>(
  options: Options,
  handshakeTimeoutMs = TLS_HANDSHAKE_TIMEOUT_MS,
): Options & { handshakeTimeout: number } {
  return { handshakeTimeout: handshakeTimeoutMs, ...options };
}
