/**
 * Load profile `mqtt-connect`: a connection storm. N devices are created through the admin API;
 * then N MQTT connections (3.1.1 or 5), one per device, send their CONNECT at a set rate, each
 * timed from the opening of its socket to its CONNACK; a share of them (`invalidShare`, spread over
 * the storm) presents a token no device has and must be refused. Every accepted connection stays
 * open until `holdS` after the last CONNACK: one the platform closes meanwhile is dropped. Then all
 * are closed and the devices deleted.
 *
 * On the load contract: sent (CONNECTs), succeeded (accepted CONNACKs), errors by kind: a refusal
 * by its return code (3.1.1, decimal) or reason code (5, hex) and mqtt.js's words, e.g. `CONNACK 5
 * Connection refused: Not authorized`, `CONNACK 0x86 ...`; a connect without CONNACK as `no
 * CONNACK: <why>`. Latency: socket to CONNACK of every answer (a refusal takes time too).
 *
 * Names: devices `<prefix>load-<runId>-conn-d<i>`, client ids the same, so two runs or two shards
 * never collide.
 */
import { readFileSync } from 'node:fs';
import { type MqttConnectLoadOptions, mqttConnectLoadOptionsSchema } from '../schemas';
import type { AdminClient } from '../src/admin-client';
import type { CleanupJournal } from '../src/target/journal';
import { MqttConnectRefusedError, type MqttVersion } from '../simulators/device/mqtt-connection';
import {
  type LoadProfile,
  type LoadRunContext,
  LoadOptionsError,
  type ProfileOutcome,
  profileTarget,
} from './contract';
import { createDevices, withCreatedFleet } from './device-fleet';
import { LeanGateway } from './lean-gateway';
import { shardIndexes, waitUntil } from './shard';

const TICK_MS = 5;
const DEFAULT_HOLD_S = 1;
const DEFAULT_PENDING = 1000;

export const mqttConnectProfile: LoadProfile<MqttConnectLoadOptions> = {
  name: 'mqtt-connect',
  title: 'MQTT connection storm',
  optionsSchema: mqttConnectLoadOptionsSchema,
  latencyMeasures: 'socket opened to CONNACK (accepted or refused)',
  metrics: {
    connected: 'connections accepted (CONNACK 0)',
    refused: 'connections refused by a CONNACK code',
    no_connack: 'connections that got no CONNACK (closed, timed out, socket error)',
    valid_refused: 'connections with a valid token that were refused',
    invalid_accepted: 'connections with a token no device has that were accepted',
    dropped: 'accepted connections the platform closed before the end of the hold',
    peak_open: 'connections open at once, at most',
    connect_rate: 'CONNECTs sent per second, first to last',
    schedule_kept:
      'achieved connect rate over the asked one (0..1): below 0.9 the storm was lighter than asked',
    left_behind: 'devices the run created and could not delete',
    file_limited:
      "connections this process could not open: its own file limit (EMFILE/ENFILE), not the target's doing",
  },
  defaultThresholds: [
    'connected>0',
    'valid_refused==0',
    'invalid_accepted==0',
    'no_connack==0',
    'dropped==0',
    'schedule_kept>=0.9',
    'left_behind==0',
  ],
  mergeRules: {
    // each shard's achieved rate against its own part of the asked one: the worst shard tells
    schedule_kept: 'min',
    // the shards send at once: their rates and their open connections add up
    connect_rate: 'sum',
    peak_open: 'sum',
  },
  run: (context) =>
    withCreatedFleet(context, 'mqtt-connect', (admin, journal) => storm(context, admin, journal)),
};

/** Whether connection i of n presents an invalid token: round(n × share) of them, spread evenly. */
export function isInvalid(index: number, share: number): boolean {
  return Math.floor((index + 1) * share) > Math.floor(index * share);
}

/** This process's open-file limit as /proc/self/limits gives it (soft and hard), or "unknown". */
export function fileLimitText(): string {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((row) => row.startsWith('Max open files'));
    const [soft, hard] = line?.split(/\s{2,}/).slice(1, 3) ?? [];
    if (soft) return `soft ${soft}, hard ${hard}`;
  } catch {
    // not Linux
  }
  return 'unknown';
}

/**
 * The error kind of a connect this process could not make for its own file limit (EMFILE, ENFILE on
 * the socket), with the limit; undefined for any other failure.
 */
export function localFileLimit(error: unknown, limit: string): string | undefined {
  let cause: unknown = error;
  for (let depth = 0; cause && depth < 4; depth++) {
    const code = (cause as { code?: unknown }).code;
    if (code === 'EMFILE' || code === 'ENFILE')
      return `generator file limit: ${code} (open files ${limit})`;
    cause = (cause as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The error kind of a refused or failed connect. */
export function connectErrorKind(error: unknown, protocolVersion: MqttVersion): string {
  if (error instanceof MqttConnectRefusedError) {
    const { code, message } = error.refusal;
    const shown = protocolVersion === 5 ? `0x${code.toString(16).padStart(2, '0')}` : String(code);
    return `CONNACK ${shown} ${message}`.trim();
  }
  const message = error instanceof Error ? error.message : String(error);
  // the driver's message names the URL first: the reason is after it
  return `no CONNACK: ${message.replace(/^.*? failed: /, '').slice(0, 80)}`;
}

interface StormCounts {
  connected: number;
  refused: number;
  noConnack: number;
  validRefused: number;
  invalidAccepted: number;
  dropped: number;
  open: number;
  peakOpen: number;
  /** Connections the generator could not open for its own file limit. */
  fileLimited: number;
  refusalsByCode: Record<string, number>;
}

async function storm(
  context: LoadRunContext<MqttConnectLoadOptions>,
  admin: AdminClient,
  journal: CleanupJournal,
): Promise<ProfileOutcome> {
  const { options, runId, recorder, signal, log } = context;
  const target = profileTarget(context, 'the mqtt-connect profile');
  if (!target.mqttUrl) throw new LoadOptionsError(`target ${target.name} has no MQTT URL`);
  const url = target.mqttUrl;
  const share = options.invalidShare ?? 0;
  // this shard's connections (all of them unsharded), named and made invalid by their index in the
  // whole storm
  const indexes = shardIndexes(options.connections, context.shard);
  const names = indexes.map((i) => `${target.namePrefix}load-${runId}-conn-d${i}`);
  const validNames = names.filter((_, k) => !isInvalid(indexes[k], share));
  const rate = (options.rate * indexes.length) / options.connections;
  const created = new Map(
    (await createDevices(admin, journal, validNames, signal)).map((device) => [
      device.name,
      device,
    ]),
  );
  log(
    `${created.size} devices created, ${names.length - created.size} connections with an invalid token`,
  );

  const counts: StormCounts = {
    connected: 0,
    refused: 0,
    noConnack: 0,
    validRefused: 0,
    invalidAccepted: 0,
    dropped: 0,
    open: 0,
    peakOpen: 0,
    fileLimited: 0,
    refusalsByCode: {},
  };
  const opened: LeanGateway[] = [];
  // read now: once the limit is reached, not even /proc/self/limits can be opened
  const fileLimit = fileLimitText();
  let closing = false;
  const pending = new Set<Promise<void>>();
  const connectOne = (index: number) => {
    const name = names[index];
    const device = created.get(name);
    recorder.sent();
    const started = performance.now();
    // the generator's own lean connection (load/lean-gateway.ts): a held connection costs little
    // more than its socket
    const done = LeanGateway.connect({
      url,
      // an invalid token: the run id makes it one no device of any run has
      token: device?.token ?? `iotc-invalid-${runId}-${indexes[index]}`,
      clientId: name,
      protocolVersion: options.protocolVersion,
      tls: target.tls,
      connectTimeoutMs: target.timeouts.requestMs,
    })
      .then(
        (connection) => {
          recorder.answered(performance.now() - started);
          opened.push(connection);
          counts.connected++;
          if (!device) counts.invalidAccepted++;
          counts.peakOpen = Math.max(counts.peakOpen, ++counts.open);
          void connection.whenClosed().then(() => {
            counts.open--;
            if (!closing) counts.dropped++;
          });
        },
        (error: unknown) => {
          // this process out of file descriptors: the generator's limit, not a fault of the target
          const local = localFileLimit(error, fileLimit);
          if (local) {
            counts.fileLimited++;
            recorder.unanswered(local);
            return;
          }
          const kind = connectErrorKind(error, options.protocolVersion);
          recorder.answered(performance.now() - started, kind);
          if (error instanceof MqttConnectRefusedError) {
            counts.refused++;
            if (device) counts.validRefused++;
            const code = String(error.refusal.code);
            counts.refusalsByCode[code] = (counts.refusalsByCode[code] ?? 0) + 1;
          } else counts.noConnack++;
        },
      )
      .finally(() => pending.delete(done));
    pending.add(done);
  };

  await context.waitForStart();
  const started = performance.now();
  let next = 0;
  let lastSentMs = 0;
  const pendingLimit = options.pending ?? DEFAULT_PENDING;
  while (next < names.length && !signal.aborted) {
    const owed = Math.min(
      names.length,
      Math.floor(((performance.now() - started) / 1000) * rate) + 1,
    );
    while (next < owed && pending.size < pendingLimit) {
      connectOne(next++);
      lastSentMs = performance.now() - started;
    }
    if (next < names.length) await new Promise((resolveTick) => setTimeout(resolveTick, TICK_MS));
  }
  const sendingMs = Math.max(lastSentMs, 1);
  await Promise.all([...pending]);
  log(
    `${counts.connected} connected, ${counts.refused} refused, ${counts.noConnack} without CONNACK; holding ${options.holdS ?? DEFAULT_HOLD_S} s`,
  );
  await waitUntil(Date.now() + (options.holdS ?? DEFAULT_HOLD_S) * 1000, signal);
  closing = true;
  const stillOpen = counts.open;
  await Promise.allSettled(opened.map((connection) => connection.close()));

  // the first CONNECT goes at 0 and the last at (n - 1) / rate: the achieved rate over that span,
  // one tick of slack
  const achieved = names.length > 1 ? (next - 1) / (Math.max(sendingMs - TICK_MS, 1) / 1000) : null;
  return {
    sendingMs,
    metrics: {
      connected: counts.connected,
      refused: counts.refused,
      no_connack: counts.noConnack,
      valid_refused: counts.validRefused,
      invalid_accepted: counts.invalidAccepted,
      dropped: counts.dropped,
      peak_open: counts.peakOpen,
      connect_rate: achieved === null ? null : Math.round(achieved * 100) / 100,
      schedule_kept: achieved === null ? 1 : Math.round(Math.min(1, achieved / rate) * 1000) / 1000,
      file_limited: counts.fileLimited,
    },
    details: {
      connections: names.length,
      invalidTokens: names.length - validNames.length,
      protocolVersion: options.protocolVersion === 5 ? '5' : '3.1.1',
      refusalsByCode: counts.refusalsByCode,
      openAtEndOfHold: stillOpen,
    },
    notes: [
      ...(signal.aborted ? [`stopped after ${next} of ${names.length} CONNECTs`] : []),
      ...(counts.fileLimited
        ? [
            `${counts.fileLimited} connections were not opened: this process reached its file limit (${fileLimit}); raise it (ulimit -n) or shard the run (--shard): not the target's doing`,
          ]
        : []),
    ],
  };
}
