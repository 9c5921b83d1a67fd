/**
 * The HTML page of the mqtt-gateway load profile: the counts (sent, acknowledged, stored, lost, duplicated), the
 * settings, and the latency percentiles as horizontal bars (inline SVG, as the other load pages).
 */
import { escapeHtml, loadReportPage } from './html';
import type { MqttGatewayReport } from './mqtt-gateway';

export function mqttGatewayHtml(report: MqttGatewayReport): string {
  const { settings, latency, readback } = report;
  const percentiles: Array<[string, number]> = [
    ['p50', latency.p50],
    ['p90', latency.p90],
    ['p99', latency.p99],
    ['p99.9', latency.p999],
    ['max', latency.max],
  ];
  const width = 640;
  const left = 60;
  const barHeight = 22;
  const longest = Math.max(0.001, ...percentiles.map(([, value]) => value));
  const bars = percentiles
    .map(([label, value], i) => {
      const y = 24 + i * (barHeight + 6);
      const length = (value / longest) * (width - left - 90);
      return (
        `<text x="${left - 8}" y="${y + 15}" font-size="12" text-anchor="end">${label}</text>` +
        `<rect x="${left}" y="${y}" width="${Math.max(1, length)}" height="${barHeight}" fill="#3559a8"/>` +
        `<text x="${left + length + 6}" y="${y + 15}" font-size="12">${value} ms</text>`
      );
    })
    .join('');
  const row = (label: string, value: unknown) =>
    `<tr><th style="text-align:left">${escapeHtml(label)}</th><td>${escapeHtml(value)}</td></tr>`;
  const counts = [
    row('sent', report.sent),
    row(
      settings.qos === 1 ? 'acknowledged (PUBACK success)' : 'written (QoS 0)',
      report.acknowledged,
    ),
    row('failed publishes', report.failed),
    row('behind schedule (window full)', report.behindSchedule),
    ...(readback
      ? [
          row(
            'devices read back',
            `${readback.devicesRead} of ${readback.devicesTotal}${readback.devicesRead < readback.devicesTotal ? ' (a sample spread over the fleet)' : ''}`,
          ),
          row('sent to them', readback.sent),
          row('stored', readback.stored),
          row('lost', readback.lost),
          row('acknowledged but not stored', readback.acknowledgedNotStored),
          row('duplicated', readback.duplicated),
        ]
      : [row('stored / lost / duplicated', 'not measured: the target has no admin API')]),
    row('sent per second', report.throughput.sentPerSecond),
    row('acknowledged per second', report.throughput.acknowledgedPerSecond),
    ...(report.cleanup
      ? [
          row(
            'deleted at the end',
            `${report.cleanup.deleted} entities${report.cleanup.failed.length ? `, ${report.cleanup.failed.length} NOT deleted` : ''}`,
          ),
        ]
      : []),
  ].join('');
  return loadReportPage(
    `MQTT gateway load: ${report.target}`,
    `<h1>MQTT gateway load on “${escapeHtml(report.target)}”: ${escapeHtml(report.verdict)}</h1>
<p>${settings.gateways} gateways × ${settings.devicesPerGateway} devices, MQTT ${escapeHtml(settings.protocolVersion)}, QoS ${settings.qos},
${settings.targetRate} messages/s asked for ${settings.durationS} s, ${settings.payloadBytes}-byte payloads, at most ${settings.window} unanswered publishes per gateway.
Setup ${report.durationMs.setup} ms, publishing ${report.durationMs.publishing} ms, readback ${report.durationMs.readback} ms, cleanup ${report.durationMs.cleanup} ms.</p>
<table>${counts}</table>
<h2>Latency, ${escapeHtml(latency.measures)} (${latency.count} samples, mean ${latency.mean} ms)</h2>
<svg width="${width}" height="${24 + percentiles.length * (barHeight + 6)}" role="img" aria-label="latency percentiles">${bars}</svg>`,
  );
}
