/**
 * The page at `/` of the reference platform: where things are, the demo credentials, and commands
 * to try, so a vendor who opens the address in a browser sees what to point the firmware at. Built
 * from the request's Host header (the address the person used) and the MQTT ports the platform
 * listens on.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { escapeHtml } from '../../lib/html';

export interface LandingFacts {
  mqttPort?: number;
  mqttsPort?: number;
  deviceToken: string;
  gatewayToken: string;
  users: Array<{ username: string; password: string; authority: string }>;
}

export function serveLandingPage(
  request: IncomingMessage,
  response: ServerResponse,
  facts: LandingFacts,
): void {
  const host = request.headers.host ?? '127.0.0.1';
  const scheme = (request.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http';
  const base = `${scheme}://${host}`;
  const hostname = host.replace(/:\d+$/, '');
  const rows: Array<[string, string]> = [
    [
      'HTTP device API',
      `${base}/api/v1/{access_token}/telemetry, /attributes, /rpc, /claim, /firmware; ${base}/api/v1/provision`,
    ],
    ...(facts.mqttPort
      ? [
          [
            'MQTT',
            `mqtt://${hostname}:${facts.mqttPort} — the access token is the user name; v1/devices/me/... and v1/gateway/...`,
          ] as [string, string],
        ]
      : []),
    ...(facts.mqttsPort
      ? [['MQTT over TLS', `mqtts://${hostname}:${facts.mqttsPort}`] as [string, string]]
      : []),
    ['admin REST API', `${base}/api — log in with POST ${base}/api/auth/login`],
    ['interactive documentation', `${base}/swagger-ui.html`],
    ['demo device token', facts.deviceToken],
    ['demo gateway token', facts.gatewayToken],
    ...facts.users.map(
      (user) =>
        [`${user.authority} user`, `${user.username} / ${user.password}`] as [string, string],
    ),
  ];
  const examples = [
    `curl -X POST -H 'Content-Type: application/json' -d '{"temperature":21.5}' ${base}/api/v1/${facts.deviceToken}/telemetry`,
    ...(facts.mqttPort
      ? [
          `mosquitto_pub -h ${hostname} -p ${facts.mqttPort} -u ${facts.deviceToken} -t v1/devices/me/telemetry -m '{"temperature":21.5}'`,
          `mosquitto_pub -h ${hostname} -p ${facts.mqttPort} -u ${facts.gatewayToken} -t v1/gateway/connect -m '{"device":"Sensor A"}'`,
        ]
      : []),
  ];
  const html = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>iotc reference platform</title>
<style>body{font:15px/1.5 system-ui,sans-serif;margin:2rem;max-width:60rem;color:#1d2330}
th{text-align:left;padding:.3rem 1rem .3rem 0;white-space:nowrap;vertical-align:top}td{padding:.3rem 0}
code,pre{font-family:ui-monospace,monospace}pre{background:#f4f5f8;padding:.6rem;white-space:pre-wrap}</style></head>
<body><h1>iotc reference platform</h1>
<p>A ThingsBoard-style platform for testing devices, gateways and clients (docs/reference/interfaces.md; where it is silent, as ThingsBoard does).</p>
<table>${rows.map(([name, value]) => `<tr><th>${escapeHtml(name)}</th><td><code>${escapeHtml(value)}</code></td></tr>`).join('')}</table>
<h2>Try</h2>${examples.map((example) => `<pre>${escapeHtml(example)}</pre>`).join('')}
</body></html>
`;
  response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  response.end(html);
}
