/**
 * `iotc simulate`: the reference platform as a standalone server, for device vendors and for runs against a
 * separate process. Prints its URLs, the demo credentials and a demo device token; stops cleanly on SIGINT/SIGTERM.
 */
import { startPlatform } from '../../simulators/platform';

export interface SimulateOptions {
  host: string;
  httpPort: number;
  claimDurationMs?: number;
  /** One JSON line for programs instead of the text for people. */
  json: boolean;
}

export async function simulate(options: SimulateOptions): Promise<void> {
  const platform = await startPlatform({
    host: options.host,
    httpPort: options.httpPort,
    claimDurationMs: options.claimDurationMs,
  });
  if (options.json) {
    process.stdout.write(
      JSON.stringify({
        httpUrl: platform.httpUrl,
        adminUrl: platform.httpUrl,
        deviceName: platform.demo.deviceName,
        deviceToken: platform.demo.deviceToken,
        users: platform.demo.users,
      }) + '\n',
    );
  } else {
    const lines = [
      'iotc reference platform is running',
      `  HTTP device API   ${platform.httpUrl}/api/v1/{access_token}/...`,
      `  admin REST API    ${platform.httpUrl}/api (login: POST ${platform.httpUrl}/api/auth/login)`,
      '  demo users        ' + platform.demo.users.map((user) => `${user.username} / ${user.password} (${user.authority})`).join('\n                    '),
      `  demo device       "${platform.demo.deviceName}", access token ${platform.demo.deviceToken}`,
      `  try               curl -X POST -H 'Content-Type: application/json' -d '{"temperature":21.5}' ${platform.httpUrl}/api/v1/${platform.demo.deviceToken}/telemetry`,
      'Stop with Ctrl-C.',
    ];
    process.stdout.write(lines.join('\n') + '\n');
  }
  await new Promise<void>((resolveStop) => {
    const stop = () => resolveStop();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await platform.close();
}
