/**
 * The operator console's HTML: the page at /certify and its live part (#live), which the server
 * renders again on every change and pushes as a server-sent event; the page's few lines of script
 * only put it in place and send finish. Everything shown is escaped with lib/html (request bodies
 * and URLs are the client's, so untrusted). Without script the page still works: it shows the state
 * when loaded, and finish is a plain form post.
 */
import { escapeHtml } from '../../../lib/html';
import type { ObservedExchange } from '../../../simulators/platform';
import { type ObservedPacket, payloadOf } from '../mqtt-packets';
import type { ConsoleState, StepView } from './console-state';

const BODY_CHARS = 300;

const STYLE = `body{font:15px/1.5 system-ui,sans-serif;margin:2rem;max-width:72rem;color:#1d2330}
code,pre{font-family:ui-monospace,monospace}table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:.25rem .6rem;vertical-align:top;border-bottom:1px solid #e3e5ea}
#current-step{font-size:1.3rem;background:#fff6d6;padding:.6rem 1rem;border-left:4px solid #e0a800}
#current-step[data-step=""]{background:#eef7ee;border-color:#3a9a3a}
.PASS{color:#17692b;font-weight:bold}.FAIL{color:#b3261e;font-weight:bold}.not-yet{color:#6b7080}
li[data-state=done]{color:#6b7080}button{font-size:1rem;padding:.4rem 1.2rem}
#finish-form{position:sticky;bottom:0;background:#fff;padding:.6rem 0;border-top:1px solid #e3e5ea}`;

/** The page's script: the live part from the event stream, finish without leaving the page. */
const SCRIPT = `const live = document.getElementById('live');
const source = new EventSource('/certify/events');
source.onmessage = (event) => {
  const update = JSON.parse(event.data);
  live.innerHTML = update.html;
  if (update.closed) source.close();
};
document.getElementById('finish-form').addEventListener('submit', (event) => {
  event.preventDefault();
  document.getElementById('finish').disabled = true;
  fetch('/certify/finish', { method: 'POST' });
});`;

export function renderConsolePage(state: ConsoleState): string {
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>iotc certify: operator console</title>
<style>${STYLE}</style></head>
<body><h1>iotc certify: operator console</h1>
<div id="live">${renderLive(state)}</div>
<form id="finish-form" method="post" action="/certify/finish"><button id="finish" type="submit">finish</button>
ends the certification now and writes the reports (a step not done leaves its requirements NOT TESTED)</form>
<script>${SCRIPT}</script>
</body></html>
`;
}

/** The part of the page that changes: connection, current step, steps, checklist, messages. */
export function renderLive(state: ConsoleState): string {
  const current = state.current();
  const mask = (text: string) => (state.token ? text.split(state.token).join('{token}') : text);
  return `<h2>Give the ${state.deviceName ? 'gateway' : 'device'}</h2>
${
  state.mqttUrl
    ? renderMqttConnection(state)
    : `<table><tr><th>URL</th><td><code id="device-url">${escapeHtml(state.httpUrl)}</code></td></tr>
<tr><th>access token</th><td><code id="device-token">${escapeHtml(state.token)}</code></td></tr></table>`
}
<h2>Now</h2>
<p id="current-step" data-step="${escapeHtml(current?.id ?? '')}" data-state="${escapeHtml(current?.state ?? '')}">${escapeHtml(nowLine(state, current))}</p>
${state.verdict ? `<p id="verdict" data-verdict="${escapeHtml(state.verdict.verdict)}">Verdict: <strong>${escapeHtml(state.verdict.verdict)}</strong>; reports in <code>${escapeHtml(state.verdict.reports)}</code></p>` : ''}
<ol id="steps">${state.steps.map(renderStep).join('')}</ol>
<h2>Checklist</h2>
<table id="checklist"><tr><th>requirement</th><th>verdict</th><th>what it asks</th><th>why</th></tr>${state
    .checklist()
    .map(
      (row) =>
        `<tr data-requirement="${escapeHtml(row.id)}" data-verdict="${escapeHtml(row.verdict)}"><td><code>${escapeHtml(row.id)}</code></td><td class="${row.verdict === 'PASS' || row.verdict === 'FAIL' ? row.verdict : 'not-yet'}">${escapeHtml(row.verdict)}</td><td>${escapeHtml(row.statement)}</td><td>${escapeHtml(mask(row.detail ?? ''))}</td></tr>`,
    )
    .join('')}</table>
${
  state.mqttUrl
    ? renderPackets(state.packets, mask)
    : `<h2>Messages (${state.messages.length})</h2>
<table id="messages"><tr><th>arrived</th><th>request</th><th>answer</th><th>body</th></tr>${state.messages
        .map((message) => renderMessage(message, mask))
        .join('')}</table>`
}`;
}

function nowLine(state: ConsoleState, current: StepView | undefined): string {
  if (state.verdict) return 'The certification is over: the reports are written.';
  if (state.finished) return 'The certification is over: writing the reports.';
  if (state.finishRequested) return 'Finishing: the waiting step ends.';
  if (!current) return state.token ? 'The platform is acting.' : 'Starting the reference platform.';
  return current.instruction;
}

function renderStep(step: StepView): string {
  const status =
    step.state === 'pending'
      ? 'to come'
      : step.state === 'done'
        ? (step.outcome ?? 'done')
        : step.state === 'waiting-for-operator'
          ? 'waiting for you'
          : 'running';
  return `<li data-step="${escapeHtml(step.id)}" data-state="${escapeHtml(step.state)}">${escapeHtml(step.instruction)} — <em>${escapeHtml(status)}</em></li>`;
}

function renderMessage(message: ObservedExchange, mask: (text: string) => string): string {
  const body =
    message.requestBody.length > BODY_CHARS
      ? `${message.requestBody.slice(0, BODY_CHARS)}…`
      : message.requestBody;
  return `<tr class="message"><td>${escapeHtml(new Date(message.receivedAt).toISOString().slice(11, 23))}</td><td><code>${escapeHtml(`${message.method} ${mask(message.url)}`)}</code>${message.contentType === undefined ? '' : ` <small>${escapeHtml(message.contentType)}</small>`}</td><td>${escapeHtml(message.status)}</td><td><code>${escapeHtml(mask(body))}</code></td></tr>`;
}

/**
 * What an MQTT device or a gateway is given: the broker's URL, host and port, the token as MQTT
 * user name, the MQTT version asked, the device a gateway connects, and the CA (none: the
 * certification offers no TLS here).
 */
function renderMqttConnection(state: ConsoleState): string {
  const url = new URL(state.mqttUrl ?? '');
  const row = (label: string, id: string, value: string) =>
    `<tr><th>${escapeHtml(label)}</th><td><code id="${id}">${escapeHtml(value)}</code></td></tr>`;
  return `<table>${row('MQTT URL', 'device-url', state.mqttUrl ?? '')}${row('host', 'device-host', url.hostname)}${row('port', 'device-port', url.port)}${row('access token (MQTT user name)', 'device-token', state.token)}${row('MQTT version', 'device-mqtt-version', state.mqttVersion ?? '')}${state.deviceName ? row('device to connect behind the gateway', 'device-name', state.deviceName) : ''}${row('CA certificate', 'device-ca', 'none: plain MQTT over TCP, no TLS')}</table>`;
}

/** The client's MQTT packets, both ways, the latest last (payloads cut, the token masked). */
function renderPackets(packets: readonly ObservedPacket[], mask: (text: string) => string): string {
  return `<h2>Messages (${packets.length})</h2>
<table id="messages"><tr><th>at</th><th>connection</th><th>packet</th><th>topic</th><th>payload</th></tr>${packets
    .map((observed) => {
      const { packet } = observed;
      const topic =
        packet.cmd === 'publish'
          ? packet.topic
          : packet.cmd === 'subscribe'
            ? packet.subscriptions.map((item) => `${item.topic} (QoS ${item.qos})`).join(', ')
            : '';
      const payload =
        packet.cmd === 'publish'
          ? payloadOf(packet)
          : packet.cmd === 'connect'
            ? `MQTT level ${packet.protocolVersion ?? ''}, user name ${packet.username ?? '(none)'}`
            : '';
      const cut = payload.length > BODY_CHARS ? `${payload.slice(0, BODY_CHARS)}…` : payload;
      const direction = observed.direction === 'in' ? 'from the client' : 'to the client';
      return `<tr class="message" data-direction="${observed.direction}"><td>${escapeHtml(new Date(observed.at).toISOString().slice(11, 23))}</td><td>${observed.connection}</td><td>${escapeHtml(`${packet.cmd.toUpperCase()} ${direction}`)}</td><td><code>${escapeHtml(topic)}</code></td><td><code>${escapeHtml(mask(cut))}</code></td></tr>`;
    })
    .join('')}</table>`;
}
