/**
 * The certificates a parallel run's coordinator hands to its workers (IOTC_EMBEDDED_CERTIFICATES)
 * are the ones the embedded target's servers present: the platform's HTTPS endpoint and the REST
 * connector's server, read from real TLS handshakes. A malformed hand-over is refused with its own
 * error, and without one the target makes its own.
 */
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { connect } from 'node:tls';
import { test } from 'node:test';
import { loadProfile } from '../../src/target';
import { startEmbedded } from '../../src/target/embedded';
import {
  EMBEDDED_CERTIFICATES_VARIABLE,
  EmbeddedCertificatesError,
  embeddedCertificates,
  makeEmbeddedCertificates,
} from '../../src/target/embedded-certificates';

/** The fingerprint of the certificate a TLS server at `url` presents. */
function presentedFingerprint(url: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(
      { host: hostname, port: Number(port), rejectUnauthorized: false },
      () => {
        resolve(socket.getPeerX509Certificate()?.fingerprint256 ?? '');
        socket.destroy();
      },
    );
    socket.on('error', reject);
  });
}

const fingerprint = (pem: string) => new X509Certificate(pem).fingerprint256;

test('the embedded servers present the certificates handed over in the environment', async () => {
  const handed = await makeEmbeddedCertificates();
  const before = process.env[EMBEDDED_CERTIFICATES_VARIABLE];
  process.env[EMBEDDED_CERTIFICATES_VARIABLE] = JSON.stringify(handed);
  let target: Awaited<ReturnType<typeof startEmbedded>> | undefined;
  try {
    target = await startEmbedded(loadProfile('embedded'));
    assert.equal(await presentedFingerprint(target.httpsUrl!), fingerprint(handed.platform.cert));
    assert.equal(target.ca, handed.platform.cert);
    assert.equal(
      await presentedFingerprint(target.connector!.url),
      fingerprint(handed.connectorServer.cert),
    );
  } finally {
    if (before === undefined) delete process.env[EMBEDDED_CERTIFICATES_VARIABLE];
    else process.env[EMBEDDED_CERTIFICATES_VARIABLE] = before;
    await target?.close();
  }
});

test('a malformed hand-over is refused, naming what it lacks', async () => {
  await assert.rejects(embeddedCertificates({ [EMBEDDED_CERTIFICATES_VARIABLE]: '{' }), (error) => {
    assert.ok(error instanceof EmbeddedCertificatesError);
    assert.equal(error.code, 'IOTC_EMBEDDED_CERTIFICATES');
    return true;
  });
  const { externalApi: _left, ...partial } = await makeEmbeddedCertificates();
  await assert.rejects(
    embeddedCertificates({ [EMBEDDED_CERTIFICATES_VARIABLE]: JSON.stringify(partial) }),
    /lacks the PEM certificate and key of externalApi/,
  );
});

test('without a hand-over, three distinct certificates are made', async () => {
  const made = await embeddedCertificates({});
  const fingerprints = new Set(
    [made.platform, made.connectorServer, made.externalApi].map((tls) => fingerprint(tls.cert)),
  );
  assert.equal(fingerprints.size, 3);
});
