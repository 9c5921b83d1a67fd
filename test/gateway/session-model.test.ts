/**
 * Model-based test of a gateway session (test/gateway/session-model.ts): random interleavings of
 * connect, disconnect, telemetry, attributes, attribute requests, admin shared-attribute updates
 * and admin RPCs, checked against a model of what the platform must hold and deliver.
 *
 * Target: the reference platform started in-process on loopback ports (default), reached only over
 * sockets: the gateway driver (MQTT 5) and the admin client (HTTP). IOTC_TARGET=<profile path> runs
 * it against any target by URL instead (entities carry the profile's name prefix and are journaled;
 * the expiring-RPC command needs a short minimum RPC timeout, so it only runs in-process).
 *
 * Replay: the test prints `seed=S`, and on failure the counterexample with `FC_SEED=S FC_PATH="P"`:
 *     FC_SEED=S FC_PATH="P" node scripts/test.js test/gateway
 * FC_RUNS sets the number of runs (default 20), FC_MAX_COMMANDS the commands per run (default 25).
 */
import { test } from 'node:test';
import fc from 'fast-check';
import { AdminClient } from '../../src/admin-client';
import { openTarget } from '../../src/target';
import { CleanupJournal, journalPath } from '../../src/target/journal';
import { eventually } from '../../steps/support/eventually';
import { startPlatform } from '../../simulators/platform';
import { MqttGateway } from '../../simulators/gateway/mqtt-gateway';
import { emptyModel, type Real } from './session-model';
import { checkWholeState, rpcReply } from './session-checks';
import { commandArbitraries } from './session-command-arbitraries';

const DEVICES = 2;
const TYPES = 1;
/** The in-process reference's minimum RPC timeout: an expiring RPC costs this much. */
const MIN_RPC_TIMEOUT_MS = 100;
const TIME_LIMIT_MS = 60_000;

interface Environment {
  mqttUrl: string;
  admin: AdminClient;
  namePrefix: string;
  inProcess: boolean;
  journal?: CleanupJournal;
  timeouts: { eventuallyMs: number; pollIntervalMs: number };
  close(): Promise<void>;
}

async function openEnvironment(): Promise<Environment> {
  if (!process.env.IOTC_TARGET) {
    const platform = await startPlatform({
      httpPort: 0,
      mqttPort: 0,
      minServerRpcTimeoutMs: MIN_RPC_TIMEOUT_MS,
    });
    const tenant = platform.demo.users.find((user) => user.authority === 'TENANT_ADMIN')!;
    const admin = await AdminClient.login(platform.httpUrl, tenant);
    return {
      mqttUrl: platform.mqttUrl!,
      admin,
      namePrefix: 'model-',
      inProcess: true,
      timeouts: { eventuallyMs: 2000, pollIntervalMs: 5 },
      close: async () => {
        await admin.close();
        await platform.close();
      },
    };
  }
  const target = await openTarget(process.env.IOTC_TARGET);
  if (!target.mqttUrl) throw new Error(`the target ${target.name} has no MQTT URL`);
  const admin = await AdminClient.login(target.adminUrl, target.tenantAdmin, { tls: target.tls });
  const runId = Math.random().toString(16).slice(2, 8);
  return {
    mqttUrl: target.mqttUrl,
    admin,
    namePrefix: `${target.namePrefix}${runId}-model-`,
    inProcess: false,
    journal: new CleanupJournal(journalPath(target.name), runId),
    timeouts: target.timeouts,
    close: async () => {
      await admin.close();
      await target.close();
    },
  };
}

function positiveEnv(name: string, fallback: number): number {
  const value = Number(process.env[name]);
  return Number.isInteger(value) && value > 0 ? value : fallback;
}

test('a gateway session follows the model: what the platform holds and what it delivers', {
  timeout: TIME_LIMIT_MS + 600_000, // fast-check stops itself at TIME_LIMIT_MS; the rest is a hang guard
}, async (t) => {
  const env = await openEnvironment();
  const { admin, journal } = env;
  const gatewayName = `${env.namePrefix}gateway`;
  const typeNames = Array.from({ length: TYPES }, (_, i) => `${env.namePrefix}type-${i}`);
  journal?.intend('device', gatewayName);
  const gatewayRecord = await admin.createDevice(gatewayName, {
    additionalInfo: { gateway: true },
  });
  journal?.created('device', gatewayName, gatewayRecord.id);
  for (const type of typeNames) journal?.intend('deviceProfile', type);
  const token = await admin.getDeviceCredentials(gatewayRecord.id);
  let runIndex = 0;

  const property = fc.asyncProperty(
    fc.commands(
      commandArbitraries({ devices: DEVICES, types: TYPES, expiringRpcs: env.inProcess }),
      {
        maxCommands: positiveEnv('FC_MAX_COMMANDS', 25),
        replayPath: process.env.FC_REPLAY_PATH || undefined,
      },
    ),
    async (commands) => {
      const run = ++runIndex;
      const names = Array.from({ length: DEVICES }, (_, i) => `${env.namePrefix}r${run}-d${i}`);
      for (const name of names) journal?.intend('device', name);
      const openGateway = async () => {
        const driver = await MqttGateway.connect({
          url: env.mqttUrl,
          token,
          protocolVersion: 5,
          attributeRequestTimeoutMs: 5000,
        });
        driver.handleRpc((request) => rpcReply(request));
        return driver;
      };
      const real: Real = {
        gateway: await openGateway(),
        openGateway,
        admin,
        names,
        types: typeNames,
        rpcTimeouts: { queued: 60_000, expiring: env.inProcess ? MIN_RPC_TIMEOUT_MS : undefined },
        quietMs: env.inProcess ? 0 : 500,
        deliveryTimeoutMs: env.timeouts.eventuallyMs,
        eventually: (probe) =>
          eventually(probe, {
            timeoutMs: env.timeouts.eventuallyMs,
            intervalMs: env.timeouts.pollIntervalMs,
          }),
        openAnswers: new Set(),
      };
      const model = emptyModel(DEVICES);
      try {
        await fc.asyncModelRun(() => ({ model, real }), commands);
        await checkWholeState(model, real);
      } finally {
        await real.gateway.close();
        for (const name of names) {
          const record = await admin.findDeviceByName(name);
          if (record) await admin.deleteDevice(record.id); // also ends the RPCs still queued for it
          journal?.deleted('device', name, record?.id);
        }
        await Promise.allSettled(real.openAnswers);
      }
    },
  );

  try {
    const seedText = process.env.FC_SEED;
    const path = process.env.FC_PATH || undefined;
    const started = Date.now();
    const out = await fc.check(property, {
      numRuns: positiveEnv('FC_RUNS', 20),
      seed: seedText ? Number(seedText) : undefined,
      path,
      endOnFailure: path !== undefined,
      includeErrorInReport: true,
      interruptAfterTimeLimit: TIME_LIMIT_MS,
      markInterruptAsFailure: true,
    });
    t.diagnostic(
      `fast-check seed=${out.seed} runs=${out.numRuns} in ${Date.now() - started} ms${out.interrupted ? ' (interrupted)' : ''}`,
    );
    if (out.failed) {
      const replay = `FC_SEED=${out.seed}${out.counterexamplePath ? ` FC_PATH="${out.counterexamplePath}"` : ''}`;
      throw new Error(
        `${fc.defaultReportMessage(out)}\nReplay: ${replay} node scripts/test.js test/gateway/session-model`,
      );
    }
  } finally {
    await admin.deleteDevice(gatewayRecord.id);
    journal?.deleted('device', gatewayName, gatewayRecord.id);
    for (const type of typeNames) {
      const profile = await admin.findDeviceProfileByName(type);
      if (profile) await admin.deleteDeviceProfile(profile.id);
      journal?.deleted('deviceProfile', type, profile?.id);
    }
    await env.close();
  }
});
