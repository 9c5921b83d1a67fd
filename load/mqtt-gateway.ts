/**
 * Load profile `mqtt-gateway`: G gateways × D sub-devices publishing telemetry through the MQTT
 * gateway API at a set rate, QoS 0 or 1, MQTT 3.1.1 or 5, for a bounded duration; then every (or a
 * sample of) sub-device's telemetry is read back through the admin API and compared with what was
 * sent.
 *
 * Each message is one device's telemetry on v1/gateway/telemetry: {"<device>": [{"ts", "values":
 * {"seq", "v"}}]}, `seq` counting 1, 2, ... per device and `ts` strictly increasing per device, so
 * every message has its own stored entry: a message stored twice shows as a seq at two timestamps,
 * a lost one as a seq that never appears. An optional `pad` string brings the payload to the
 * requested size (load/mqtt-gateway-publish.ts).
 *
 * On the load contract: sent (published), succeeded (QoS 1: a success PUBACK; QoS 0: written to the
 * socket), errors by kind (a failure PUBACK with its reason code, a closed connection, no answer in
 * time), latency publish→PUBACK (QoS 1; QoS 0: publish→written); the profile adds stored, lost
 * (sent, never stored), duplicated, and the schedule. Each gateway keeps at most `window` publishes
 * unanswered; when the platform is slower than the rate, the schedule falls behind and
 * `schedule_kept` shows it.
 *
 * Targets: a profile (default `embedded`): gateways are created through the admin API with the
 * profile's prefix, journaled before they exist, and deleted at the end with every sub-device they
 * created (also on Ctrl-C, through the journal). Or a bare MQTT URL with gateway tokens from an
 * environment variable (no admin API: nothing is created or deleted, and nothing can be read back,
 * so stored, lost and duplicated are NOT MEASURED).
 */
import { type MqttGatewayLoadOptions, mqttGatewayLoadOptionsSchema } from '../schemas';
import { AdminClient } from '../src/admin-client';
import type { Target } from '../src/target';
import { CleanupJournal, cleanupFromJournal, journalPath } from '../src/target/journal';
import type { LeanGateway } from './lean-gateway';
import {
  type LoadProfile,
  type LoadRunContext,
  LoadOptionsError,
  type ProfileOutcome,
  QUEUED_MERGE_RULES,
  QUEUED_METRICS,
  queuedMetrics,
  SCHEDULE_KEPT_OF_SUMS,
} from './contract';
import {
  closeGateways,
  connectGateways,
  connectSubDevices,
  createGatewayDevices,
  fleetNames,
} from './gateway-fleet';
import {
  messageHead,
  messageText,
  PAD_OVERHEAD,
  type PublishingDevice,
  publishLoop,
} from './mqtt-gateway-publish';
import { type FleetReadback, readBackFleet } from './seq-readback';
import { shardIndexes } from './shard';

export { tallySeqs } from './seq-readback';

const MAX_READBACK_DEVICES = 1000;
const DEFAULT_WINDOW = 1000;

export const mqttGatewayProfile: LoadProfile<MqttGatewayLoadOptions> = {
  name: 'mqtt-gateway',
  title: 'MQTT gateway load',
  optionsSchema: mqttGatewayLoadOptionsSchema,
  latencyMeasures:
    'publish to PUBACK (QoS 1), publish to written (QoS 0); the wait in the generator before the publish is queued_p50/p99',
  metrics: {
    stored: 'distinct seqs read back (of the devices read)',
    lost: 'messages sent and never stored',
    acknowledged_not_stored:
      'messages acknowledged with success and never stored (the worst kind of lost)',
    duplicated: 'stored entries beyond one per seq',
    beyond_retention: "oldest seqs not checked: beyond the target's retention per key",
    behind_schedule: 'messages the rate asked for that the window did not let out',
    schedule_kept:
      'sent over what the rate asked for (0..1): below 0.9 the run measured a lighter load than asked',
    acknowledged_rate: 'success answers per second, up to the last answer',
    left_behind: 'entities the run created and could not delete',
    ...QUEUED_METRICS,
  },
  defaultThresholds: [
    'sent>0',
    'errors==0',
    'lost==0',
    'duplicated==0',
    'schedule_kept>=0.9',
    'left_behind==0',
  ],
  bareTarget: (options) => options.mqttUrl,
  mergeRules: {
    schedule_kept: SCHEDULE_KEPT_OF_SUMS,
    acknowledged_rate: 'sum',
    ...QUEUED_MERGE_RULES,
  },
  run: runMqttGateway,
};

/** What the run opened, for the cleanup whatever happens. */
interface Fleet {
  gateways: LeanGateway[];
  admin?: AdminClient;
  journal?: CleanupJournal;
}

async function runMqttGateway(
  context: LoadRunContext<MqttGatewayLoadOptions>,
): Promise<ProfileOutcome> {
  const { target, log } = context;
  const fleet: Fleet = { gateways: [] };
  let outcome: ProfileOutcome;
  let cleanup: { deleted: number; failed: string[] } | null = null;
  const cleanupStarted = { at: 0 };
  try {
    outcome = await measure(context, fleet);
  } finally {
    await closeGateways(fleet.gateways);
    cleanupStarted.at = performance.now();
    if (fleet.admin && fleet.journal && target) {
      const { deleted, failed } = await cleanupFromJournal(
        fleet.journal.path,
        fleet.admin,
        target.namePrefix,
        context.runId,
      );
      cleanup = { deleted: deleted.length, failed };
      if (failed.length)
        log(
          `cleanup left ${failed.length} entities; run iotc cleanup --target ${target.name}: ${failed.slice(0, 5).join('; ')}`,
        );
    }
    await fleet.admin?.close();
  }
  return {
    ...outcome,
    // a bare target: nothing was created, nothing can be left
    metrics: { ...outcome.metrics, left_behind: cleanup?.failed.length ?? 0 },
    details: {
      ...outcome.details,
      cleanup,
      cleanupMs: Math.round(performance.now() - cleanupStarted.at),
    },
  };
}

/**
 * The gateway tokens: created through the admin API on a profile target, from the environment on a
 * bare one.
 */
async function gatewayTokens(
  options: MqttGatewayLoadOptions,
  target: Target | undefined,
  fleet: Fleet,
  runId: string,
  gatewayNames: string[],
  indexes: readonly number[],
): Promise<string[]> {
  if (target) {
    fleet.admin = await AdminClient.login(target.adminUrl, target.tenantAdmin, {
      requestTimeoutMs: target.timeouts.requestMs,
      tls: target.tls,
    });
    fleet.journal = new CleanupJournal(journalPath(target.name), runId);
    return createGatewayDevices(fleet.admin, fleet.journal, gatewayNames);
  }
  const variable = options.gatewayTokenEnv ?? '';
  const tokens = (process.env[variable] ?? '')
    .split(',')
    .map((token) => token.trim())
    .filter(Boolean);
  if (tokens.length < options.gateways)
    throw new LoadOptionsError(
      `a bare target needs one gateway token per gateway in ${variable}: ${options.gateways} gateways, ${tokens.length} tokens`,
    );
  return indexes.map((i) => tokens[i]);
}

async function measure(
  context: LoadRunContext<MqttGatewayLoadOptions>,
  fleet: Fleet,
): Promise<ProfileOutcome> {
  const { options, target, runId, log, recorder, signal } = context;
  const setupStarted = performance.now();
  const window = options.window ?? DEFAULT_WINDOW;
  // this shard's gateways (all of them unsharded), named by their index in the whole fleet
  const indexes = shardIndexes(options.gateways, context.shard);
  const names = fleetNames(
    target?.namePrefix ?? 'iotc-',
    runId,
    options.gateways,
    options.devicesPerGateway,
    indexes,
  );
  const mqttUrl = options.mqttUrl ?? target?.mqttUrl;
  if (!mqttUrl) throw new LoadOptionsError(`target ${target?.name} has no MQTT URL`);
  const tokens = await gatewayTokens(options, target, fleet, runId, names.gateways, indexes);
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
  const setupMs = Math.round(performance.now() - setupStarted);
  log(
    `${indexes.length} gateways connected ${indexes.length * options.devicesPerGateway} devices in ${setupMs} ms`,
  );

  const devices: PublishingDevice[][] = names.devices.map((list) =>
    list.map((name) => ({
      name,
      messageHead: messageHead(name),
      sent: 0,
      notSucceeded: [],
      lastTs: 0,
    })),
  );
  const perGatewayRate =
    options.rateOf === 'total' ? options.rate / options.gateways : options.rate;
  const unpadded = messageText(names.devices[0]?.[0] ?? '', Date.now(), 1_000_000, '').length;
  const padLength = options.payloadBytes
    ? Math.max(0, options.payloadBytes - unpadded - PAD_OVERHEAD)
    : 0;
  await context.waitForStart();
  const startTs = Date.now() - 1;
  const started = performance.now();
  const deadline = started + options.durationS * 1000;
  const settings = { rate: perGatewayRate, deadline, window, qos: options.qos, signal };
  const loops = await Promise.all(
    fleet.gateways.map((gateway, i) =>
      publishLoop(gateway, devices[i], { ...settings, pad: 'x'.repeat(padLength) }, recorder),
    ),
  );
  const answeredMs = performance.now() - started;
  const sendingMs = Math.min(performance.now(), deadline) - started;
  const sent = loops.reduce((sum, loop) => sum + loop.sent, 0);
  const behind = loops.reduce((sum, loop) => sum + loop.behind, 0);
  const totals = recorder.snapshot();
  log(`sent ${totals.sent}, acknowledged ${totals.succeeded}, failed ${totals.errorCount}`);

  const notes: string[] = [];
  let readback: FleetReadback | null = null;
  if (!fleet.admin || !target)
    notes.push('stored, lost and duplicated are not measured: a bare target has no admin API');
  else if (signal.aborted)
    notes.push('stored, lost and duplicated are not measured: the run was stopped');
  else {
    const admin = fleet.admin;
    readback = await readBackFleet(
      admin,
      target,
      devices.flat(),
      startTs,
      options.sampleDevices ?? MAX_READBACK_DEVICES,
      async (device) => (await admin.findDeviceByName(device.name))?.id,
    );
    log(
      `read back ${readback.devicesRead} of ${readback.devicesTotal} devices: stored ${readback.stored} of ${readback.sent}, lost ${readback.lost}, duplicated ${readback.duplicated}, beyond retention ${readback.beyondRetention}`,
    );
    if (readback.devicesRead < readback.devicesTotal)
      notes.push(
        `stored, lost and duplicated count a sample of ${readback.devicesRead} of ${readback.devicesTotal} devices, spread over the fleet`,
      );
  }
  return {
    sendingMs,
    metrics: {
      stored: readback?.stored,
      lost: readback?.lost,
      acknowledged_not_stored: readback?.acknowledgedNotStored,
      duplicated: readback?.duplicated,
      beyond_retention: readback?.beyondRetention,
      behind_schedule: behind,
      ...queuedMetrics(recorder),
      schedule_kept: sent + behind > 0 ? Math.round((sent / (sent + behind)) * 1000) / 1000 : null,
      acknowledged_rate:
        answeredMs > 0 ? Math.round((totals.succeeded / answeredMs) * 100_000) / 100 : null,
    },
    details: {
      settings: {
        gateways: options.gateways,
        devicesPerGateway: options.devicesPerGateway,
        qos: options.qos,
        protocolVersion: options.protocolVersion === 5 ? '5' : '3.1.1',
        targetRate: perGatewayRate * indexes.length,
        payloadBytes: unpadded + (padLength > 0 ? padLength + PAD_OVERHEAD : 0),
        window,
      },
      setupMs,
      readback,
    },
    notes,
  };
}
