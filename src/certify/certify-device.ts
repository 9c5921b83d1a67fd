/**
 * `iotc certify device --transport http --exec "<command>"`: certifies a client of the HTTP device API.
 *
 * It starts the reference platform with its traffic observation on (simulators/platform/traffic.ts), creates a
 * device through the admin API, and starts the client under test with the URL and token in its environment
 * (IOTC_CERTIFY_URL, IOTC_CERTIFY_TOKEN). Once the client's first request arrives it walks the steps that need the
 * platform to act: a shared-attribute update, then a two-way server-side RPC (waiting for its outcome). Then it gives
 * the client a grace period to end by itself and ends it (SIGTERM, SIGKILL), on every path. Every request the client
 * sent is then checked against the device requirements of the catalogue (http-device-checks.ts).
 */
import { randomBytes } from 'node:crypto';
import { AdminClient } from '../admin-client';
import { startPlatform, type RunningPlatform } from '../../simulators/platform';
import type { ObservedExchange } from '../../simulators/platform/traffic';
import { ClientProcess } from './client-process';
import type { SentRpc } from './http-device-checks';

export interface CertifySessionOptions {
  exec: string;
  /** The two-way RPC's timeout (also the reference's shortest, so a short one is honoured as given). */
  rpcTimeoutMs: number;
  /** How long the client has to send its first request. */
  startTimeoutMs: number;
  /** How long the client may run on after the steps before it is ended. */
  graceMs: number;
  /** Where the session tells the person what happens. */
  say: (line: string) => void;
}

export interface CertifySession {
  httpUrl: string;
  token: string;
  exchanges: ObservedExchange[];
  rpcs: SentRpc[];
  /** The client's exit code, or the signal that ended it. */
  exit: number | string;
  startedAt: Date;
  finishedAt: Date;
}

/** The method of the certification's two-way RPC (what a client under test answers). */
export const CERTIFY_RPC_METHOD = 'iotcCertifyPing';
/** The shared attribute the certification updates. */
export const CERTIFY_SHARED_KEY = 'iotcCertifyStep';

export async function runCertifySession(options: CertifySessionOptions): Promise<CertifySession> {
  const startedAt = new Date();
  const exchanges: ObservedExchange[] = [];
  let firstRequest: () => void = () => {};
  const spoke = new Promise<void>((resolve) => {
    firstRequest = resolve;
  });
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
        if (event.protocol === 'http' && !isAdminRequest(event.exchange.url))
          exchanges.push(event.exchange);
      },
      // the steps start at the client's first request, also when that one is a long-poll still waiting
      requestArrived: (request) => {
        if (!isAdminRequest(request.url ?? '')) firstRequest();
      },
    });
    const tenant = platform.demo.users.find((user) => user.authority === 'TENANT_ADMIN');
    if (!tenant) throw new Error('the reference platform has no tenant administrator');
    admin = await AdminClient.login(platform.httpUrl, tenant);
    const device = await admin.createDevice(`certify-${randomBytes(3).toString('hex')}`);
    const token = await admin.getDeviceCredentials(device.id);
    options.say(`IOTC_CERTIFY_URL=${platform.httpUrl}`);
    options.say(`IOTC_CERTIFY_TOKEN=${token}`);
    options.say(`starting the client under test: ${options.exec}`);
    client = new ClientProcess(options.exec, {
      IOTC_CERTIFY_URL: platform.httpUrl,
      IOTC_CERTIFY_TOKEN: token,
    });
    const rpcs: SentRpc[] = [];
    if (await first(spoke, client, options.startTimeoutMs)) {
      await admin.saveAttributes(device.id, 'SHARED_SCOPE', { [CERTIFY_SHARED_KEY]: 1 });
      options.say(`step 1: shared attribute ${CERTIFY_SHARED_KEY} set to 1`);
      const call: SentRpc = {
        method: CERTIFY_RPC_METHOD,
        sentAt: Date.now(),
        timeoutMs: options.rpcTimeoutMs,
      };
      rpcs.push(call);
      options.say(
        `step 2: two-way RPC ${call.method} sent (timeout ${call.timeoutMs} ms); answer it with POST /api/v1/{token}/rpc/{id}`,
      );
      const answer = await admin.rpc(device.id, 'twoway', {
        method: call.method,
        params: { step: 2 },
        timeout: call.timeoutMs,
      });
      options.say(`step 2: the platform's RPC call ended with ${answer.status}`);
    } else {
      options.say(
        client.running
          ? `the client sent no request within ${options.startTimeoutMs} ms: the steps are skipped`
          : 'the client ended before its first request: the steps are skipped',
      );
    }
    const exit = await client.end(options.graceMs);
    options.say(`the client under test ended: ${exit}`);
    return {
      httpUrl: platform.httpUrl,
      token,
      exchanges,
      rpcs,
      exit,
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

/** True when the client spoke first; false when it ended or the bound passed. */
async function first(spoke: Promise<void>, client: ClientProcess, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const result = await Promise.race([
    spoke.then(() => true),
    client.exited.then(() => false),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    }),
  ]);
  clearTimeout(timer);
  return result;
}
