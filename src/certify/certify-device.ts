/**
 * `iotc certify device --transport http --exec "<command>"`: certifies a client of the HTTP device API.
 *
 * It starts the reference platform with its traffic observation on (simulators/platform/traffic.ts), creates a
 * device through the admin API, and starts the client under test with the URL and token in its environment
 * (IOTC_CERTIFY_URL, IOTC_CERTIFY_TOKEN). Once the client's first request arrives it walks the steps that need the
 * platform to act: a shared-attribute update, then a two-way server-side RPC (waiting for its outcome). Then it gives
 * the client a grace period to end by itself and ends it (SIGTERM, SIGKILL), on every path. Every request the client
 * sent is then checked against the device requirements of the catalogue (http-device-checks.ts).
 *
 * Without a command (`--console`) a person drives the device: the steps then also ask for telemetry and client
 * attributes, each waits (bounded) for the request it asks for, and the session ends when the operator presses finish
 * on the console or the last step's bound passes. Every step and request is told to `events` (session-steps.ts).
 */
import { randomBytes } from 'node:crypto';
import { AdminClient } from '../admin-client';
import { startPlatform, type RunningPlatform } from '../../simulators/platform';
import type { ObservedExchange } from '../../simulators/platform/traffic';
import { ClientProcess } from './client-process';
import type { SentRpc } from './http-device-checks';
import {
  Arrivals,
  type SessionListener,
  type StepPlan,
  type StepRecord,
  StepWalker,
} from './session-steps';

export interface CertifySessionOptions {
  /** The client under test; absent: a person drives the device from the operator console. */
  exec?: string;
  /** The two-way RPC's timeout (also the reference's shortest, so a short one is honoured as given). */
  rpcTimeoutMs: number;
  /** How long the client has to send its first request. */
  startTimeoutMs: number;
  /** How long the client may run on after the steps before it is ended. */
  graceMs: number;
  /** Where the session tells the person what happens. */
  say: (line: string) => void;
  /** Operator mode: how long a step waits for the device to do what it asks (and for finish after the last). */
  stepTimeoutMs?: number;
  /** Told of every step, request and RPC as it happens (the operator console). */
  events?: SessionListener;
  /** Settles when the operator presses finish: the waiting step ends, the steps not reached are skipped. */
  finish?: Promise<void>;
}

export interface CertifySession {
  httpUrl: string;
  token: string;
  exchanges: ObservedExchange[];
  rpcs: SentRpc[];
  /** The client's exit code, or the signal that ended it; operator mode: how the session ended. */
  exit: number | string;
  steps: StepRecord[];
  startedAt: Date;
  finishedAt: Date;
}

/** The method of the certification's two-way RPC (what a client under test answers). */
export const CERTIFY_RPC_METHOD = 'iotcCertifyPing';
/** The shared attribute the certification updates. */
export const CERTIFY_SHARED_KEY = 'iotcCertifyStep';

const SHARED_STEP: StepPlan = {
  id: 'shared-attribute',
  instruction: `the platform sets the shared attribute ${CERTIFY_SHARED_KEY} to 1: read it (GET /api/v1/{token}/attributes?sharedKeys=${CERTIFY_SHARED_KEY})`,
  requirements: ['HTTP-DEV-07'],
};
const RPC_STEP: StepPlan = {
  id: 'rpc',
  instruction: `answer the RPC ${CERTIFY_RPC_METHOD} now: poll GET /api/v1/{token}/rpc, reply POST /api/v1/{token}/rpc/{id}`,
  requirements: ['HTTP-DEV-05', 'HTTP-DEV-06'],
};
const FIRST_REQUEST_STEP: StepPlan = {
  id: 'first-request',
  instruction: "the client's first request",
  requirements: [],
};
const TELEMETRY_STEP: StepPlan = {
  id: 'telemetry',
  instruction:
    'send telemetry now: POST /api/v1/{token}/telemetry, once also in the timestamped form {"ts": <unix ms>, "values": {...}}',
  requirements: ['HTTP-DEV-02', 'HTTP-DEV-03', 'HTTP-DEV-04'],
};
const ATTRIBUTES_STEP: StepPlan = {
  id: 'attributes',
  instruction: 'post client attributes now: POST /api/v1/{token}/attributes {"key": value}',
  requirements: ['HTTP-DEV-02', 'HTTP-DEV-03'],
};
const FINISH_STEP: StepPlan = {
  id: 'finish',
  instruction: 'all steps are done: press finish',
  requirements: [],
};
/** `--exec`: the client runs by itself; the platform acts once it has spoken. */
const SCRIPTED_STEPS: readonly StepPlan[] = [FIRST_REQUEST_STEP, SHARED_STEP, RPC_STEP];
/** `--console`: a person drives the device, one request kind at a time. */
export const OPERATOR_STEPS: readonly StepPlan[] = [
  TELEMETRY_STEP,
  ATTRIBUTES_STEP,
  SHARED_STEP,
  RPC_STEP,
  FINISH_STEP,
];

export async function runCertifySession(options: CertifySessionOptions): Promise<CertifySession> {
  const startedAt = new Date();
  const exchanges: ObservedExchange[] = [];
  const tell: SessionListener = options.events ?? (() => {});
  const arrivals = new Arrivals();
  const steps = new StepWalker(
    options.exec === undefined ? OPERATOR_STEPS : SCRIPTED_STEPS,
    tell,
    options.finish,
  );
  let platform: RunningPlatform | undefined;
  let admin: AdminClient | undefined;
  let client: ClientProcess | undefined;
  // Ctrl-C or a kill ends the certification at once; the client's group is killed on the way out (client-process.ts)
  const interrupted = (signal: NodeJS.Signals) => {
    options.say(`${signal}: the certification is abandoned, the client under test killed`);
    process.exit(130);
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    platform = await startPlatform({
      minServerRpcTimeoutMs: options.rpcTimeoutMs,
      traffic: (event) => {
        if (event.protocol === 'http' && !isAdminRequest(event.exchange.url)) {
          exchanges.push(event.exchange);
          tell({ kind: 'message', exchange: event.exchange });
        }
      },
      // the steps start at the client's first request, also when that one is a long-poll still waiting
      requestArrived: (request) => {
        if (!isAdminRequest(request.url ?? ''))
          arrivals.arrived(request.method ?? '', request.url ?? '');
      },
    });
    const tenant = platform.demo.users.find((user) => user.authority === 'TENANT_ADMIN');
    if (!tenant) throw new Error('the reference platform has no tenant administrator');
    admin = await AdminClient.login(platform.httpUrl, tenant);
    const device = await admin.createDevice(`certify-${randomBytes(3).toString('hex')}`);
    const token = await admin.getDeviceCredentials(device.id);
    options.say(`IOTC_CERTIFY_URL=${platform.httpUrl}`);
    options.say(`IOTC_CERTIFY_TOKEN=${token}`);
    tell({ kind: 'ready', httpUrl: platform.httpUrl, token });
    const session = admin;
    const resource = (method: string, name: string) => (at: string, path: string) =>
      at === method && path === `/api/v1/${token}/${name}`;
    const rpcs: SentRpc[] = [];
    /** `readBound`: a person at the console reads the attribute back before the RPC (a script does it on its own). */
    const platformSteps = async (readBound?: number) => {
      await steps.run(SHARED_STEP, {
        act: () => session.saveAttributes(device.id, 'SHARED_SCOPE', { [CERTIFY_SHARED_KEY]: 1 }),
        ...(readBound === undefined
          ? {}
          : {
              wait: () => arrivals.until(resource('GET', 'attributes')).then(() => undefined),
              timeoutMs: readBound,
            }),
      });
      options.say(`step 1: shared attribute ${CERTIFY_SHARED_KEY} set to 1`);
      if (steps.finishedByOperator) return;
      const call: SentRpc = {
        method: CERTIFY_RPC_METHOD,
        sentAt: Date.now(),
        timeoutMs: options.rpcTimeoutMs,
      };
      options.say(
        `step 2: two-way RPC ${call.method} sent (timeout ${call.timeoutMs} ms); answer it with POST /api/v1/{token}/rpc/{id}`,
      );
      await steps.run(RPC_STEP, {
        wait: async () => {
          rpcs.push(call);
          tell({ kind: 'rpc', rpc: call, settled: false });
          const answer = await session.rpc(device.id, 'twoway', {
            method: call.method,
            params: { step: 2 },
            timeout: call.timeoutMs,
          });
          tell({ kind: 'rpc', rpc: call, settled: true });
          options.say(`step 2: the platform's RPC call ended with ${answer.status}`);
          return answer.status === 200 ? 'done' : 'timed out';
        },
        boundMs: call.timeoutMs,
      });
    };
    let exit: number | string;
    if (options.exec === undefined) {
      const bound = options.stepTimeoutMs ?? options.startTimeoutMs;
      for (const [step, name] of [
        [TELEMETRY_STEP, 'telemetry'],
        [ATTRIBUTES_STEP, 'attributes'],
      ] as const)
        await steps.run(step, {
          wait: () => arrivals.until(resource('POST', name)).then(() => undefined),
          timeoutMs: bound,
        });
      await platformSteps(bound);
      const last = await steps.run(FINISH_STEP, {
        wait: () => new Promise(() => {}),
        timeoutMs: bound,
      });
      exit = last === 'timed out' ? `no finish within ${bound} ms` : 'finished by the operator';
    } else {
      options.say(`starting the client under test: ${options.exec}`);
      client = new ClientProcess(options.exec, {
        IOTC_CERTIFY_URL: platform.httpUrl,
        IOTC_CERTIFY_TOKEN: token,
      });
      const first = await steps.run(FIRST_REQUEST_STEP, {
        wait: () => arrivals.until(() => true).then(() => undefined),
        timeoutMs: options.startTimeoutMs,
        ended: client.exited,
      });
      if (first === 'done') await platformSteps();
      else
        options.say(
          first === 'timed out'
            ? `the client sent no request within ${options.startTimeoutMs} ms: the steps are skipped`
            : 'the client ended before its first request: the steps are skipped',
        );
      exit = await client.end(options.graceMs);
      options.say(`the client under test ended: ${exit}`);
    }
    tell({ kind: 'finished' });
    return {
      httpUrl: platform.httpUrl,
      token,
      exchanges,
      rpcs,
      exit,
      steps: steps.close(),
      startedAt,
      finishedAt: new Date(),
    };
  } finally {
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
    await client?.end(0);
    await admin?.close();
    await platform?.close();
  }
}

/**
 * The certification's own admin API calls pass the same server: /api/<anything but a version>/... (a device's
 * requests under /api/v1/, or a wrong version such as /api/v2/, stay the client's).
 */
function isAdminRequest(url: string): boolean {
  return /^\/api\/(?!v\d+(\/|$))/.test(url);
}
