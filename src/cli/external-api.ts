/**
 * `iotc external-api`: the external-API simulator on its own, next to a real gateway under test.
 * The gateway's rest.json sends its attribute-update and RPC calls here; the target profile's
 * connector.externalApiUrl names it so steps can script its answers and read what it recorded. With
 * --https-port it also serves HTTPS with a generated self-signed certificate that nobody trusts,
 * which the SSLVerify rules of the conformance rest.json need (a verifying gateway must refuse it,
 * a non-verifying one must reach it). Stops on SIGINT/SIGTERM.
 */
import { ExternalApiSimulator } from '../../simulators/external-api';
import { generateSelfSignedCertificate } from '../../lib/tls/certificate';

export interface ExternalApiOptions {
  host: string;
  port: number;
  /** Also serve HTTPS on this port (0 = any free port). */
  httpsPort?: number;
  /** One JSON line with the URLs for programs instead of the text for people. */
  json: boolean;
}

export async function runExternalApi(options: ExternalApiOptions): Promise<void> {
  const tls =
    options.httpsPort === undefined
      ? undefined
      : await generateSelfSignedCertificate(['localhost', options.host]);
  const simulator = await ExternalApiSimulator.start({
    host: options.host,
    port: options.port,
    tls,
    httpsPort: options.httpsPort,
  });
  process.stdout.write(
    options.json
      ? `${JSON.stringify({ url: simulator.url, httpsUrl: simulator.httpsUrl })}\n`
      : `iotc external-API simulator at ${simulator.url}${simulator.httpsUrl ? ` and ${simulator.httpsUrl} (untrusted self-signed certificate)` : ''} (control under ${simulator.url}/__iotc/); stop with Ctrl-C\n`,
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await simulator.close();
}
