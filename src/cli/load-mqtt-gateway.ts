/**
 * `iotc load mqtt-gateway`: the options into a run of the load profile; Ctrl-C stops the publishing and lets the
 * run delete what it created (the journal has it, should the cleanup itself be interrupted).
 */
import { runMqttGatewayLoad } from '../../load/mqtt-gateway';
import { withInterruptAbort } from './load-interrupt';

export interface MqttGatewayCommandOptions {
  target: string;
  mqttUrl?: string;
  gatewayTokenEnv?: string;
  gateways: number;
  devices: number;
  rate: number;
  totalRate?: number;
  qos: 0 | 1;
  mqttVersion: 4 | 5;
  duration: number;
  payloadBytes?: number;
  window: number;
  sample?: number;
  reports: string;
}

export async function mqttGatewayCommand(options: MqttGatewayCommandOptions): Promise<number> {
  let bare: { mqttUrl: string; gatewayTokens: string[] } | undefined;
  if (options.mqttUrl) {
    if (!options.gatewayTokenEnv)
      throw new Error(
        '--mqtt-url needs --gateway-token-env VAR (the gateway access tokens, comma-separated)',
      );
    const tokens = (process.env[options.gatewayTokenEnv] ?? '')
      .split(',')
      .map((token) => token.trim())
      .filter(Boolean);
    if (tokens.length === 0)
      throw new Error(`the environment variable ${options.gatewayTokenEnv} holds no gateway token`);
    bare = { mqttUrl: options.mqttUrl, gatewayTokens: tokens };
  }
  return withInterruptAbort(async (signal) => {
    const { exitCode } = await runMqttGatewayLoad({
      target: options.target,
      bare,
      gateways: options.gateways,
      devicesPerGateway: options.devices,
      rate: options.totalRate ?? options.rate,
      rateOf: options.totalRate ? 'total' : 'gateway',
      qos: options.qos,
      protocolVersion: options.mqttVersion,
      durationS: options.duration,
      payloadBytes: options.payloadBytes,
      window: options.window,
      sampleDevices: options.sample,
      reportsDir: options.reports,
      signal,
    });
    return signal.aborted ? 130 : exitCode;
  });
}
