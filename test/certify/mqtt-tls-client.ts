/**
 * A client under test for `iotc certify device --transport mqtt --tls`: iotc's MQTT device
 * (mqtt-device-client.ts, trusting IOTC_CERTIFY_CA_FILE), preceded by one connection of its own
 * that verifies the server certificate as the planted fault says and, when it accepts it, sends its
 * CONNECT (token and all), waits for the CONNACK and disconnects. In the certification's TLS checks
 * that first connection is the one judged. IOTC_TEST_CLIENT_FAULT:
 * - accepts-untrusted (CLI-TLS-02): a certificate no trusted authority issued is accepted;
 * - ignores-name (CLI-TLS-03): the certificate's subject name is not checked;
 * - accepts-expired (CLI-TLS-04): an expired certificate is accepted (the rest still verified);
 * - small-buffer (CLI-TLS-05): a certificate chain of more than two certificates is refused (a
 *   small TLS buffer);
 * - plain-first (CLI-TLS-01): a first connection speaks plain MQTT to the TLS port.
 */
import { connect as netConnect } from 'node:net';
import { connect as tlsConnect, checkServerIdentity, type PeerCertificate } from 'node:tls';
import { isIP } from 'node:net';
import mqttPacket from 'mqtt-packet';
import { main } from './mqtt-device-client';
import { fault, protocolVersion, tls, token, url } from './mqtt-client-environment';

/**
 * Bound of the first connection's wait for the CONNACK or the close (a hang guard, not a
 * measurement).
 */
const FRONT_WAIT_MS = 10_000;

function connectPacket(): Buffer {
  return mqttPacket.generate({
    cmd: 'connect',
    protocolId: 'MQTT',
    protocolVersion,
    clean: true,
    clientId: `tls-front-${process.pid}`,
    keepalive: 60,
    username: token,
  });
}

/** The certificates the server sent: the leaf and the chain up to the last one it sent. */
function chainLength(
  certificate: PeerCertificate & { issuerCertificate?: PeerCertificate },
): number {
  let count = 1;
  let current = certificate;
  while (current.issuerCertificate && current.issuerCertificate !== current) {
    count += 1;
    current = current.issuerCertificate;
  }
  return count;
}

async function front(): Promise<void> {
  const { hostname, port } = new URL(url);
  if (fault === 'plain-first')
    await new Promise<void>((resolve) => {
      const plain = netConnect(Number(port), hostname, () => plain.write(connectPacket()));
      plain.on('error', () => resolve());
      plain.on('close', () => resolve());
      setTimeout(() => plain.destroy(), FRONT_WAIT_MS).unref();
    });
  await new Promise<void>((resolve) => {
    const lenient = fault === 'accepts-untrusted' || fault === 'accepts-expired';
    const socket = tlsConnect({
      host: hostname,
      port: Number(port),
      ...(isIP(hostname) ? {} : { servername: hostname }),
      ...(tls ? { ca: tls.ca } : {}),
      rejectUnauthorized: !lenient,
      checkServerIdentity: fault === 'ignores-name' ? () => undefined : checkServerIdentity,
    });
    const done = () => {
      socket.destroy();
      resolve();
    };
    socket.on('error', done);
    socket.on('close', done);
    setTimeout(done, FRONT_WAIT_MS).unref();
    socket.once('secureConnect', () => {
      const error = socket.authorizationError as unknown as string | undefined;
      const tolerated =
        fault === 'accepts-untrusted'
          ? ['DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN']
          : fault === 'accepts-expired'
            ? ['CERT_HAS_EXPIRED']
            : [];
      if (error && !tolerated.includes(error)) return done();
      if (fault === 'small-buffer' && chainLength(socket.getPeerCertificate(true)) > 2)
        return done();
      socket.write(connectPacket());
      socket.once('data', () => {
        socket.end(mqttPacket.generate({ cmd: 'disconnect' }));
      });
    });
  });
}

front()
  .then(main)
  .catch((error: unknown) => {
    console.error(`test client: ${(error as Error).message}`);
    process.exitCode = 1;
  });
