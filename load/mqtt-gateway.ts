/**
 * Load profile `mqtt-gateway`: G gateways × D sub-devices publishing telemetry through the MQTT gateway API at a set
 * rate, QoS 0 or 1, MQTT 3.1.1 or 5, for a bounded duration; then every (or a sample of) sub-device's telemetry is
 * read back through the admin API and compared with what was sent.
 *
 * Each message is one device's telemetry on v1/gateway/telemetry: {"<device>": [{"ts", "values": {"seq", "v"}}]},
 * `seq` counting 1, 2, ... per device and `ts` strictly increasing per device (the wall clock, or one past the last
 * ts when the clock has not moved), so every message has its own stored entry: a message stored twice shows as a
 * seq that appears at two timestamps, a lost one as a seq that never appears. An optional `pad` string brings the
 * payload to the requested size.
 *
 * Counts: sent (published), acknowledged (QoS 1: PUBACK with a success code; QoS 0: written to the socket), stored
 * (distinct seqs read back), lost (sent, never stored), duplicated (stored entries beyond one per seq). Latency
 * publish→PUBACK (QoS 1; QoS 0: publish→written) in an HDR histogram. Each gateway keeps at most `window` publishes
 * unanswered; when the platform is slower than the rate, the schedule falls behind and the report shows the
 * achieved rate. Writes reports/load/mqtt-gateway.json and .html.
 *
 * Targets: a profile (default `embedded`): gateways are created through the admin API with the profile's prefix,
 * journaled before they exist, and deleted at the end with every sub-device they created (also on Ctrl-C, through
 * the journal). Or a bare MQTT URL with gateway tokens from an environment variable (no admin API: nothing is
 * created or deleted, and nothing can be read back, so stored, lost and duplicated are not measured).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as hdr from 'hdr-histogram-js';
import { AdminClient } from '../src/admin-client';
import { openTarget, type Target } from '../src/target';
import { CleanupJournal, cleanupFromJournal, journalPath } from '../src/target/journal';
import { isFailure, type MqttVersion, type Qos } from '../simulators/device/mqtt-connection';
import { GATEWAY_TOPICS, type MqttGateway } from '../simulators/gateway/mqtt-gateway';
import {
  closeGateways,
  connectGateways,
  connectSubDevices,
  createGatewayDevices,
  fleetNames,
  mapLimited,
} from './gateway-fleet';
import { mqttGatewayHtml } from './mqtt-gateway-html';
import type { LatencySummary as RecordedLatency } from './recorder';
import { nextSeq, readStoredSeqs, type SeqTally, tallySeqs } from './seq-readback';

export { tallySeqs };

export interface MqttGatewayLoadOptions {
  /** A profile name or path (default `embedded`), or a target already open (the caller closes it). */
  target?: string | Target;
  /** A bare MQTT target instead of a profile: the URL and one gateway access token per gateway. */
  bare?: { mqttUrl: string; gatewayTokens: string[] };
  gateways: number;
  devicesPerGateway: number;
  /** Messages per second, per gateway or for the whole fleet. */
  rate: number;
  rateOf: 'gateway' | 'total';
  qos: Qos;
  protocolVersion: MqttVersion;
  durationS: number;
  /** Bytes of each message payload (at least the unpadded message; 0 = no padding). */
  payloadBytes?: number;
  /** Publishes a gateway keeps unanswered at most (default 1000). */
  window?: number;
  /** Read back at most this many sub-devices, spread over the fleet (default: all, up to 1000). */
  sampleDevices?: number;
  /** Where reports/load/ goes; no files when absent. */
  reportsDir?: string;
  /** Stops the run early (Ctrl-C): publishing ends, the fleet is cleaned up. */
  signal?: AbortSignal;
  log?: (line: string) => void;
}

export interface LatencySummary extends RecordedLatency {
  /** What is timed: publish→PUBACK (QoS 1) or publish→written (QoS 0). */
  measures: string;
}

export interface MqttGatewayReport {
  profile: 'mqtt-gateway';
  target: string;
  settings: {
    gateways: number;
    devicesPerGateway: number;
    qos: Qos;
    protocolVersion: '3.1.1' | '5';
    durationS: number;
    /** Messages per second asked for the whole fleet. */
    targetRate: number;
    payloadBytes: number;
    window: number;
  };
  sent: number;
  acknowledged: number;
  /** Publishes that failed: a failure PUBACK, a closed connection or no answer in time. */
  failed: number;
  /** Messages the rate asked for but the window did not let out before the end. */
  behindSchedule: number;
  /** Readback through the admin API; null when the target has no admin API (bare). */
  readback:
    | null
    | ({
        /** Devices read back (all, or a sample spread over the fleet). */
        devicesRead: number;
        devicesTotal: number;
      } & SeqTally);
  /** Whether the run reached the rate it was asked for (at least 90 % of the messages it owed); a run that did not
   * measured a lighter load than asked, and does not pass. */
  rateReached: boolean;
  /** Why the verdict is FAIL, one line each. */
  failures: string[];
  /** Achieved messages per second: sent over the publishing time; acknowledged over the time to the last answer. */
  throughput: { sentPerSecond: number; acknowledgedPerSecond: number };
  latency: LatencySummary;
  durationMs: {
    setup: number;
    publishing: number;
    readback: number;
    cleanup: number;
    total: number;
  };
  cleanup: null | { deleted: number; failed: string[] };
  verdict: 'PASS' | 'FAIL' | 'NOT MEASURED';
}

/** A device as the publisher sees it: what it sent, what came back unacknowledged, its last timestamp. */
interface DeviceState {
  name: string;
  sent: number;
  /** Seqs whose publish did not end in a success PUBACK (QoS 1). */
  notAcknowledged: number[];
  lastTs: number;
}

const MAX_READBACK_DEVICES = 1000;
const TICK_MS = 5;

/** What the publishing and the readback measured, before cleanup. */
type Measured = Omit<MqttGatewayReport, 'durationMs' | 'cleanup' | 'verdict' | 'failures'>;

export async function runMqttGatewayLoad(
  options: MqttGatewayLoadOptions,
): Promise<{ report: MqttGatewayReport; exitCode: number }> {
  const log = options.log ?? ((line: string) => console.log(line));
  const started = Date.now();
  const ownsTarget = typeof options.target !== 'object';
  const target = options.bare
    ? undefined
    : typeof options.target === 'object'
      ? options.target
      : await openTarget(options.target ?? 'embedded');
  const timings = { setup: 0, publishing: 0, readback: 0, cleanup: 0, total: 0 };
  const fleet: Fleet = { gateways: [] };
  let measured: Measured;
  let cleanup: MqttGatewayReport['cleanup'] = null;
  try {
    measured = await measure(options, target, fleet, timings, log);
  } finally {
    await closeGateways(fleet.gateways);
    const cleanupStarted = Date.now();
    if (fleet.admin && fleet.journal && target) {
      const { deleted, failed } = await cleanupFromJournal(
        fleet.journal.path,
        fleet.admin,
        target.namePrefix,
      );
      cleanup = { deleted: deleted.length, failed };
      if (failed.length)
        log(
          `cleanup left ${failed.length} entities; run iotc cleanup --target ${target.name}: ${failed.slice(0, 5).join('; ')}`,
        );
    }
    timings.cleanup = Date.now() - cleanupStarted;
    timings.total = Date.now() - started;
    await fleet.admin?.close();
    if (ownsTarget) await target?.close();
  }
  const readback = measured.readback;
  const failures = [
    options.signal?.aborted ? 'interrupted' : '',
    readback?.lost ? `lost ${readback.lost}` : '',
    readback?.duplicated ? `duplicated ${readback.duplicated}` : '',
    measured.failed ? `failed publishes ${measured.failed}` : '',
    measured.sent === 0 ? 'nothing sent' : '',
    measured.rateReached
      ? ''
      : `rate not reached: ${measured.behindSchedule} of ${measured.sent + measured.behindSchedule} messages behind schedule`,
    cleanup?.failed.length ? `cleanup failed for ${cleanup.failed.length}` : '',
  ].filter(Boolean);
  const verdict: MqttGatewayReport['verdict'] =
    failures.length > 0 ? 'FAIL' : !readback ? 'NOT MEASURED' : 'PASS';
  const report: MqttGatewayReport = {
    ...measured,
    failures,
    durationMs: timings,
    cleanup,
    verdict,
  };
  if (options.reportsDir) {
    const dir = resolve(options.reportsDir, 'load');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'mqtt-gateway.json'), `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(join(dir, 'mqtt-gateway.html'), mqttGatewayHtml(report));
    if (failures.length) log(`FAIL: ${failures.join('; ')}`);
    log(
      `${verdict}: reports ${join(dir, 'mqtt-gateway.json')} and .html (${Math.round(timings.total / 100) / 10} s)`,
    );
  }
  return { report, exitCode: verdict === 'FAIL' ? 1 : 0 };
}

/** What the run opened, for the cleanup whatever happens. */
interface Fleet {
  gateways: MqttGateway[];
  admin?: AdminClient;
  journal?: CleanupJournal;
}

async function measure(
  options: MqttGatewayLoadOptions,
  target: Target | undefined,
  fleet: Fleet,
  timings: MqttGatewayReport['durationMs'],
  log: (line: string) => void,
): Promise<Measured> {
  const started = Date.now();
  const window = options.window ?? 1000;
  const runId = randomBytes(3).toString('hex');
  const names = fleetNames(
    target?.namePrefix ?? 'iotc-',
    runId,
    options.gateways,
    options.devicesPerGateway,
  );
  const mqttUrl = options.bare?.mqttUrl ?? target?.mqttUrl;
  if (!mqttUrl) throw new Error(`target ${target?.name} has no MQTT URL`);
  let tokens: string[];
  if (target) {
    fleet.admin = await AdminClient.login(target.adminUrl, target.tenantAdmin, {
      requestTimeoutMs: target.timeouts.requestMs,
      tls: target.tls,
    });
    fleet.journal = new CleanupJournal(journalPath(target.name), runId);
    tokens = await createGatewayDevices(fleet.admin, fleet.journal, names.gateways);
  } else {
    tokens = options.bare!.gatewayTokens;
    if (tokens.length < options.gateways)
      throw new Error(
        `a bare target needs one gateway token per gateway: ${options.gateways} gateways, ${tokens.length} tokens`,
      );
    tokens = tokens.slice(0, options.gateways);
  }
  fleet.gateways = await connectGateways(tokens, {
    url: mqttUrl,
    protocolVersion: options.protocolVersion,
    qos: options.qos,
    tls: target?.tls,
  });
  // the platform creates the sub-devices on connect: their names go to the journal before
  fleet.journal?.intendAll('device', names.devices.flat());
  await Promise.all(
    fleet.gateways.map((gateway, i) => connectSubDevices(gateway, names.devices[i])),
  );
  timings.setup = Date.now() - started;
  log(
    `${options.gateways} gateways connected ${options.gateways * options.devicesPerGateway} devices in ${timings.setup} ms`,
  );

  const devices: DeviceState[][] = names.devices.map((list) =>
    list.map((name) => ({ name, sent: 0, notAcknowledged: [], lastTs: 0 })),
  );
  const perGatewayRate =
    options.rateOf === 'total' ? options.rate / options.gateways : options.rate;
  const unpadded = messageText(names.devices[0]?.[0] ?? '', Date.now(), 1_000_000, '').length;
  const padLength = options.payloadBytes
    ? Math.max(0, options.payloadBytes - unpadded - PAD_OVERHEAD)
    : 0;
  const pad = 'x'.repeat(padLength);
  const histogram = hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 120_000_000,
    numberOfSignificantValueDigits: 3,
  });
  const counters = { sent: 0, acknowledged: 0, failed: 0, behind: 0, lastAnswerAt: 0 };

  const publishStarted = Date.now();
  const deadline = publishStarted + options.durationS * 1000;
  const answered = (elapsedMs: number, ok: boolean) => {
    if (ok) counters.acknowledged++;
    else counters.failed++;
    histogram.recordValue(Math.max(1, Math.round(elapsedMs * 1000)));
    counters.lastAnswerAt = Date.now();
  };
  const loops = await Promise.all(
    fleet.gateways.map((gateway, i) =>
      publishLoop(
        gateway,
        devices[i],
        { rate: perGatewayRate, deadline, window, qos: options.qos, pad, signal: options.signal },
        answered,
      ),
    ),
  );
  for (const loop of loops) {
    counters.sent += loop.sent;
    counters.behind += loop.behind;
  }
  const publishingMs = Math.min(Date.now(), deadline) - publishStarted;
  timings.publishing = Date.now() - publishStarted;
  log(
    `sent ${counters.sent}, acknowledged ${counters.acknowledged}, failed ${counters.failed} in ${timings.publishing} ms`,
  );

  let readback: MqttGatewayReport['readback'] = null;
  if (fleet.admin && target && !options.signal?.aborted) {
    const readStarted = Date.now();
    readback = await readBack(
      fleet.admin,
      target,
      devices.flat(),
      options.qos,
      publishStarted - 1,
      options.sampleDevices ?? MAX_READBACK_DEVICES,
    );
    timings.readback = Date.now() - readStarted;
    log(
      `read back ${readback.devicesRead} of ${readback.devicesTotal} devices: stored ${readback.stored} of ${readback.sent}, lost ${readback.lost}, duplicated ${readback.duplicated}, beyond retention ${readback.beyondRetention}`,
    );
  }
  const latency = summarize(histogram, options.qos);
  log(
    `latency (${latency.measures}) p50 ${latency.p50} ms, p99 ${latency.p99} ms, max ${latency.max} ms`,
  );
  return {
    profile: 'mqtt-gateway',
    target: target?.name ?? mqttUrl,
    settings: {
      gateways: options.gateways,
      devicesPerGateway: options.devicesPerGateway,
      qos: options.qos,
      protocolVersion: options.protocolVersion === 5 ? '5' : '3.1.1',
      durationS: options.durationS,
      targetRate: perGatewayRate * options.gateways,
      payloadBytes: unpadded + (padLength > 0 ? padLength + PAD_OVERHEAD : 0),
      window,
    },
    sent: counters.sent,
    acknowledged: counters.acknowledged,
    failed: counters.failed,
    behindSchedule: counters.behind,
    rateReached: counters.behind <= 0.1 * (counters.sent + counters.behind),
    readback,
    throughput: {
      sentPerSecond: round(counters.sent / Math.max(publishingMs / 1000, 0.001)),
      acknowledgedPerSecond: round(
        counters.acknowledged /
          Math.max(
            (Math.max(counters.lastAnswerAt, publishStarted + 1) - publishStarted) / 1000,
            0.001,
          ),
      ),
    },
    latency,
  };
}

/** `,"pad":""` around the padding string. */
const PAD_OVERHEAD = ',"pad":""'.length;

function messageText(device: string, ts: number, seq: number, pad: string): string {
  const values = pad
    ? `{"seq":${seq},"v":${seq % 1000},"pad":"${pad}"}`
    : `{"seq":${seq},"v":${seq % 1000}}`;
  return `{${JSON.stringify(device)}:[{"ts":${ts},"values":${values}}]}`;
}

interface LoopSettings {
  rate: number;
  deadline: number;
  window: number;
  qos: Qos;
  pad: string;
  signal?: AbortSignal;
}

/**
 * One gateway's publishing: on every tick, as many messages as the rate owes since the start, round robin over its
 * devices, while fewer than `window` are unanswered. Stops at the deadline (or on abort), then waits for the answers
 * of what it sent (each bounded by the connection's ack timeout).
 */
async function publishLoop(
  gateway: MqttGateway,
  devices: DeviceState[],
  settings: LoopSettings,
  answered: (elapsedMs: number, ok: boolean) => void,
): Promise<{ sent: number; behind: number }> {
  const started = Date.now();
  let sent = 0;
  let inFlight = 0;
  let next = 0;
  const pending = new Set<Promise<void>>();
  let wake: (() => void) | undefined;
  const publishOne = () => {
    const device = devices[next];
    next = (next + 1) % devices.length;
    const seq = nextSeq(device);
    inFlight++;
    sent++;
    const done = gateway
      .publish(
        GATEWAY_TOPICS.telemetry,
        { raw: messageText(device.name, device.lastTs, seq, settings.pad) },
        settings.qos,
      )
      .then((outcome) => {
        const ok = !isFailure(outcome);
        if (!ok) device.notAcknowledged.push(seq);
        answered(outcome.elapsedMs, ok);
      })
      .finally(() => {
        inFlight--;
        pending.delete(done);
        wake?.();
      });
    pending.add(done);
  };
  while (Date.now() < settings.deadline && !settings.signal?.aborted && devices.length > 0) {
    const owed = Math.floor(((Date.now() - started) / 1000) * settings.rate) + 1;
    while (sent < owed && inFlight < settings.window) publishOne();
    // sleep a tick, or less when an answer frees the window while messages are owed
    await new Promise<void>((resolveTick) => {
      const timer = setTimeout(
        () => {
          wake = undefined;
          resolveTick();
        },
        Math.min(TICK_MS, Math.max(0, settings.deadline - Date.now())),
      );
      wake =
        sent < owed
          ? () => {
              clearTimeout(timer);
              wake = undefined;
              resolveTick();
            }
          : undefined;
    });
  }
  const owedAtEnd = Math.floor(
    ((Math.min(Date.now(), settings.deadline) - started) / 1000) * settings.rate,
  );
  await Promise.all([...pending]);
  return { sent, behind: Math.max(0, owedAtEnd - sent) };
}

/**
 * Reads back the seqs stored for each device (all, or `limit` spread over the fleet) and compares them with what
 * was sent. The platform may store after its PUBACK: each device is read again until it holds every acknowledged
 * seq or the target's `eventually` time has passed.
 */
async function readBack(
  admin: AdminClient,
  target: Target,
  devices: DeviceState[],
  qos: Qos,
  startTs: number,
  limit: number,
): Promise<NonNullable<MqttGatewayReport['readback']>> {
  const step = Math.max(1, devices.length / Math.min(limit, devices.length));
  const sample = Array.from(
    { length: Math.min(limit, devices.length) },
    (_, i) => devices[Math.floor(i * step)],
  );
  const deadline = Date.now() + Math.max(target.timeouts.eventuallyMs, 2000);
  const totals = {
    sent: 0,
    stored: 0,
    lost: 0,
    duplicated: 0,
    acknowledgedNotStored: 0,
    beyondRetention: 0,
  };
  const retained = target.historyPerKey ?? Number.POSITIVE_INFINITY;
  await mapLimited(sample, 8, async (device) => {
    const record = await admin.findDeviceByName(device.name);
    const acknowledged =
      qos === 1 ? device.sent - new Set(device.notAcknowledged).size : device.sent;
    const expected = Math.min(acknowledged, retained);
    const seqs = record
      ? await readStoredSeqs(admin, record.id, {
          startTs,
          sent: device.sent,
          lastTs: device.lastTs,
          retained,
          expected,
          deadline,
          pollIntervalMs: target.timeouts.pollIntervalMs,
        })
      : [];
    const tally = tallySeqs(device.sent, device.notAcknowledged, seqs, retained);
    for (const key of Object.keys(totals) as Array<keyof typeof totals>) totals[key] += tally[key];
  });
  return { devicesRead: sample.length, devicesTotal: devices.length, ...totals };
}

function summarize(histogram: hdr.Histogram, qos: Qos): LatencySummary {
  const ms = (microseconds: number) => round(microseconds / 1000);
  const empty = histogram.totalCount === 0;
  return {
    unit: 'ms',
    measures: qos === 1 ? 'publish to PUBACK' : 'publish to written',
    count: histogram.totalCount,
    min: empty ? 0 : ms(histogram.minNonZeroValue),
    mean: empty ? 0 : ms(histogram.mean),
    p50: ms(histogram.getValueAtPercentile(50)),
    p90: ms(histogram.getValueAtPercentile(90)),
    p99: ms(histogram.getValueAtPercentile(99)),
    p999: ms(histogram.getValueAtPercentile(99.9)),
    max: ms(histogram.maxValue),
  };
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
