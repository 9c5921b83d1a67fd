/**
 * `iotc connector rest.json`: the reference REST connector on its own, forwarding to a platform's
 * MQTT transport with a gateway device's token. The token comes from the environment
 * (IOTC_GATEWAY_TOKEN), never from the command line, where other users of the machine could read
 * it. Stops on SIGINT/SIGTERM.
 */
import { startConnector } from '../../simulators/connector';

export async function runConnector(
  configFile: string,
  options: { mqttUrl: string; extensions?: string },
): Promise<number> {
  const gatewayToken = process.env.IOTC_GATEWAY_TOKEN;
  if (!gatewayToken) {
    console.error(
      'iotc connector: set IOTC_GATEWAY_TOKEN to the access token of a gateway device (additionalInfo.gateway = true)',
    );
    return 2;
  }
  const connector = await startConnector({
    config: configFile,
    mqttUrl: options.mqttUrl,
    gatewayToken,
    extensionsFolder: options.extensions,
  });
  process.stdout.write(
    `iotc REST connector serving ${configFile} at ${connector.url}, forwarding to ${options.mqttUrl}; stop with Ctrl-C\n`,
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await connector.close();
  return 0;
}
