/**
 * A client under test for `iotc certify device --transport http`: iotc's own HTTP device driver
 * doing what a device does (telemetry in the object and timestamped forms, client attributes, the
 * shared attribute the certification sets, the answer to its two-way RPC), then ending.
 * IOTC_TEST_CLIENT_FAULT plants one fault, each breaking exactly one device requirement:
 * - content-type (HTTP-DEV-02): the object-form telemetry is sent as text/plain;
 * - url (HTTP-DEV-01): one telemetry post goes to a resource the API does not have;
 * - trailing-slash (HTTP-DEV-01): every telemetry and attribute request's URL ends with a slash
 *   (telemetry/);
 * - shape (HTTP-DEV-03): the client attributes are an array, not an object;
 * - seconds (HTTP-DEV-04): the timestamped telemetry's ts is in seconds;
 * - wrong-id (HTTP-DEV-05): the RPC reply goes to another id than the request's;
 * - late (HTTP-DEV-06): the RPC reply is sent IOTC_TEST_CLIENT_LATE_MS after the request arrived;
 * - snake-case-keys (HTTP-DEV-07): the attribute request names its keys in shared_keys (as the
 *   Python SDK's TBHTTPDevice 1.13 does);
 * - json-keys (HTTP-DEV-07): the attribute request's sharedKeys is a JSON array literal
 *   (sharedKeys=["iotcCertifyStep"]);
 * - duration-string (HTTP-DEV-08): the claim's durationMs is a string;
 * - provision-no-secret (HTTP-DEV-09): the provisioning request has no provisionDeviceSecret;
 * - firmware-no-version (HTTP-DEV-10): the firmware request names its title only;
 * - reply-not-json (HTTP-DEV-11): the RPC reply's body is the text pong (still sent as
 *   application/json);
 * - rpc-not-json (HTTP-DEV-12): the client-side RPC's body is the text getCurrentTime (as
 *   application/json);
 * - timeout-fraction (HTTP-DEV-13): a last long-poll for attribute updates asks timeout=0.5;
 * - tight-poll (CLI-BEH-06): the shared attribute is read ten times back to back.
 * The clean client also claims, provisions itself (with a key the platform does not know: the
 * request is judged, not the answer), asks for firmware and sends a client-side RPC: each action a
 * requirement binds. IOTC_TEST_CLIENT_POLL_FIRST=1 makes its first request a long-poll for the RPC
 * (120 s), as firmware often starts.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { HttpDevice, provision } from '../../simulators/device/http-device';

const url = process.env.IOTC_CERTIFY_URL ?? '';
const token = process.env.IOTC_CERTIFY_TOKEN ?? '';
const fault = process.env.IOTC_TEST_CLIENT_FAULT ?? '';
/** Bound of the client's wait for the certification's RPC (a hang guard, not a measurement). */
const RPC_POLLS = 12;

async function main(): Promise<void> {
  if (!url || !token) throw new Error('IOTC_CERTIFY_URL and IOTC_CERTIFY_TOKEN must be set');
  const device = new HttpDevice(url, token);
  const slash = fault === 'trailing-slash' ? '/' : '';
  try {
    const pollFirst = process.env.IOTC_TEST_CLIENT_POLL_FIRST === '1';
    if (pollFirst) await answerRpc(device, 120_000);
    if (fault === 'content-type') {
      // the driver always sends the right header, so the faulty request is made by hand
      const answer = await request(`${url}/api/v1/${token}/telemetry`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: JSON.stringify({ temperature: 21.5 }),
      });
      await answer.body.dump();
    } else {
      await device.request('POST', `telemetry${slash}`, { json: { temperature: 21.5 } });
    }
    const now = Date.now();
    await device.request('POST', `telemetry${slash}`, {
      json: { ts: fault === 'seconds' ? Math.floor(now / 1000) : now, values: { humidity: 40 } },
    });
    await device.request('POST', `attributes${slash}`, {
      json: fault === 'shape' ? ['firmwareVersion', '1.0.0'] : { firmwareVersion: '1.0.0' },
    });
    if (fault === 'url') await device.request('POST', 'telemetries', { json: { pressure: 1013 } });
    await device.claim({
      json: { secretKey: 's', durationMs: fault === 'duration-string' ? '60000' : 60000 },
    });
    await provision(url, {
      json: {
        deviceName: 'iotc-certify-provisioned',
        provisionDeviceKey: 'iotc-certify-key',
        ...(fault === 'provision-no-secret'
          ? {}
          : { provisionDeviceSecret: 'iotc-certify-secret' }),
      },
    });
    if (fault === 'firmware-no-version') await device.request('GET', 'firmware?title=iotc-fw');
    else await device.firmware('iotc-fw', '1.0.0');
    await device.clientRpc(
      fault === 'rpc-not-json'
        ? { raw: 'getCurrentTime' }
        : { json: { method: 'getCurrentTime', params: {} } },
    );
    if (!pollFirst) await answerRpc(device, 5000);
    // the shared attribute the certification set before its RPC
    const query =
      fault === 'snake-case-keys'
        ? 'shared_keys=iotcCertifyStep'
        : fault === 'json-keys'
          ? `sharedKeys=${encodeURIComponent('["iotcCertifyStep"]')}`
          : 'sharedKeys=iotcCertifyStep';
    if (fault === 'tight-poll')
      for (let poll = 0; poll < 10; poll += 1)
        await device.request('GET', `attributes?sharedKeys=iotcCertifyStep`);
    const shared = await device.request('GET', `attributes${slash}?${query}`);
    console.log(`test client: shared attributes ${shared.text}`);
    if (fault === 'timeout-fraction') await device.request('GET', 'attributes/updates?timeout=0.5');
  } finally {
    await device.close();
  }
}

/** Long-polls for the certification's RPC and answers it (up to RPC_POLLS polls of `pollMs`). */
async function answerRpc(device: HttpDevice, pollMs: number): Promise<void> {
  for (let poll = 0; poll < RPC_POLLS; poll += 1) {
    const answer = await device.pollRpc(pollMs);
    if (answer.status !== 200) continue;
    const rpc = JSON.parse(answer.text) as { id: number; method: string };
    if (fault === 'late') await sleep(Number(process.env.IOTC_TEST_CLIENT_LATE_MS ?? 0));
    await device.replyRpc(
      fault === 'wrong-id' ? rpc.id + 1000 : rpc.id,
      fault === 'reply-not-json' ? { raw: 'pong' } : { json: { pong: rpc.method } },
    );
    break;
  }
}

main().catch((error: unknown) => {
  console.error(`test client: ${(error as Error).message}`);
  process.exitCode = 1;
});
