/**
 * `iotc external-api`: the external-API simulator on its own, next to a real gateway under test. The gateway's
 * rest.json sends its attribute-update and RPC calls here; the target profile's connector.externalApiUrl names it so
 * steps can script its answers and read what it recorded. Stops on SIGINT/SIGTERM.
 */
import { ExternalApiSimulator } from '../../simulators/external-api';

export async function runExternalApi(options: { host: string; port: number }): Promise<void> {
  const simulator = await ExternalApiSimulator.start({ host: options.host, port: options.port });
  process.stdout.write(
    `iotc external-API simulator at ${simulator.url} (control under ${simulator.url}/__iotc/); stop with Ctrl-C\n`,
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await simulator.close();
}
