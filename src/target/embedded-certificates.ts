/**
 * The embedded target's certificates: the platform's (HTTPS, MQTTS), the REST connector's server
 * and the external API simulator's. A parallel `iotc run` makes them once in the coordinator and
 * hands them to its workers in the environment (IOTC_EMBEDDED_CERTIFICATES): each worker used to
 * load the certificate library and sign three certificates at its start, ~90 ms of CPU six times
 * over on a machine where CPU is what the run waits for. Anything else that starts the embedded
 * target (one process, a test) makes its own.
 */
import { IotcError } from '../../lib/errors';
import { generateSelfSignedCertificate, type TlsMaterial } from '../../lib/tls/certificate';

export interface EmbeddedCertificates {
  platform: TlsMaterial;
  connectorServer: TlsMaterial;
  externalApi: TlsMaterial;
}

export const EMBEDDED_CERTIFICATES_VARIABLE = 'IOTC_EMBEDDED_CERTIFICATES';

/** The embedded target's TLS certificates could not be made or handed to the workers. */
export class EmbeddedCertificatesError extends IotcError {
  readonly code = 'IOTC_EMBEDDED_CERTIFICATES';
}

/** Three new certificates. */
export async function makeEmbeddedCertificates(): Promise<EmbeddedCertificates> {
  const [platform, connectorServer, externalApi] = await Promise.all([
    generateSelfSignedCertificate(),
    generateSelfSignedCertificate(),
    generateSelfSignedCertificate(),
  ]);
  return { platform, connectorServer, externalApi };
}

/** The certificates the environment hands over, else new ones. */
export async function embeddedCertificates(
  env: NodeJS.ProcessEnv = process.env,
): Promise<EmbeddedCertificates> {
  const handed = env[EMBEDDED_CERTIFICATES_VARIABLE];
  return handed ? parseEmbeddedCertificates(handed) : makeEmbeddedCertificates();
}

function parseEmbeddedCertificates(text: string): EmbeddedCertificates {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new EmbeddedCertificatesError(
      `${EMBEDDED_CERTIFICATES_VARIABLE} is not JSON: ${(error as Error).message}`,
    );
  }
  const certificates = parsed as Partial<Record<keyof EmbeddedCertificates, Partial<TlsMaterial>>>;
  for (const name of ['platform', 'connectorServer', 'externalApi'] as const) {
    const material = certificates?.[name];
    if (typeof material?.cert !== 'string' || typeof material.key !== 'string')
      throw new EmbeddedCertificatesError(
        `${EMBEDDED_CERTIFICATES_VARIABLE} lacks the PEM certificate and key of ${name}`,
      );
  }
  return parsed as EmbeddedCertificates;
}
