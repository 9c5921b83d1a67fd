/**
 * The bench's REST connector: the reference connector in its own process, with one anonymous JSON
 * endpoint /bench whose converter takes the same four telemetry values as the direct device-API
 * post, forwarding to the platform child over MQTT with the platform's demo gateway token
 * (environment IOTC_BENCH_MQTT_URL and IOTC_BENCH_GATEWAY_TOKEN; never printed). Prints
 * `{"httpUrl": ...}` when ready; stops on SIGTERM/SIGINT or when its parent goes away.
 */
import { completeConfig, startConnector } from '../simulators/connector';

async function main(): Promise<void> {
  const mqttUrl = process.env.IOTC_BENCH_MQTT_URL;
  const gatewayToken = process.env.IOTC_BENCH_GATEWAY_TOKEN;
  if (!mqttUrl || !gatewayToken)
    throw new Error('IOTC_BENCH_MQTT_URL and IOTC_BENCH_GATEWAY_TOKEN are needed');
  const config = completeConfig({
    server: { host: '127.0.0.1', port: 0 },
    mapping: [
      {
        endpoint: '/bench',
        HTTPMethods: ['POST'],
        security: { type: 'anonymous' },
        converter: {
          type: 'json',
          deviceInfo: {
            deviceNameExpression: 'bench-connector-device',
            deviceNameExpressionSource: 'constant',
          },
          timeseries: [
            { key: 'temperature', type: 'double', value: '${temperature}' },
            { key: 'humidity', type: 'integer', value: '${humidity}' },
            { key: 'active', type: 'boolean', value: '${active}' },
            { key: 'status', type: 'string', value: '${status}' },
          ],
        },
      },
    ],
  });
  const connector = await startConnector({ config, mqttUrl, gatewayToken });
  process.stdout.write(`${JSON.stringify({ httpUrl: connector.url })}\n`);
  const stop = () => {
    void connector.close().finally(() => process.exit(0));
    setTimeout(() => process.exit(0), 2000).unref();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.stdin.on('end', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench connector: ${(error as Error).message}\n`);
  process.exit(1);
});
