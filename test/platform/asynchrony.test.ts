/**
 * The reference's asynchrony (simulators/platform/core/scheduler.ts), at the boundary: a raw MQTT
 * client and the admin REST API. No test asserts a time: delays come from the scheduler's seed and
 * bounds chosen so that the outcome is decided by them (large bounds against a few milliseconds of
 * requests), and each effect is awaited.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Packet } from 'mqtt-packet';
import type { RunningPlatform } from '../../simulators/platform';
import {
  drawDelay,
  mulberry32,
  Scheduler,
  type AsynchronyOptions,
} from '../../simulators/platform/core/scheduler';
import { RawClient } from './raw-mqtt-client';
import { call, login, newDevice, start } from './support';

const UPDATES = 4;
const UPDATE_BOUNDS = { minMs: 0, maxMs: 2000 };
/** Gap between two deliveries' delays that request jitter (milliseconds) cannot overturn. */
const SAFE_GAP_MS = 250;

/**
 * A seed whose UPDATES attribute-update delays (drawn after the subscription's one) are pairwise
 * SAFE_GAP_MS apart and not in send order: with it the arrival order is the delays' order, whatever
 * the requests' own few ms.
 */
function separatedSeed(): { seed: number; order: number[] } {
  for (let seed = 1; ; seed++) {
    const random = mulberry32(seed);
    drawDelay(random, { minMs: 0, maxMs: 0 }); // the subscription's draw
    const delays = Array.from({ length: UPDATES }, () => drawDelay(random, UPDATE_BOUNDS));
    const sorted = [...delays].sort((a, b) => a - b);
    const separated = sorted.every((delay, i) => i === 0 || delay - sorted[i - 1] >= SAFE_GAP_MS);
    const order = delays.map((_, i) => i).sort((a, b) => delays[a] - delays[b]);
    if (separated && order.some((index, position) => index !== position)) return { seed, order };
  }
}

async function withPlatform<T>(
  asynchrony: AsynchronyOptions,
  body: (platform: RunningPlatform, jwt: string, port: number) => Promise<T>,
): Promise<T> {
  const platform = await start({ mqttPort: 0, asynchrony, quirks: 'thingsboard-4.3' });
  try {
    const jwt = await login(platform.httpUrl);
    return await body(platform, jwt, Number(new URL(platform.mqttUrl!).port));
  } finally {
    await platform.close();
  }
}

async function saveShared(
  platform: RunningPlatform,
  jwt: string,
  id: string,
  values: object,
): Promise<void> {
  const answer = await call(
    platform.httpUrl,
    'POST',
    `/api/plugins/telemetry/DEVICE/${id}/SHARED_SCOPE`,
    { body: values, jwt },
  );
  assert.equal(answer.status, 200);
}

function payloadOf(packet: Packet): Record<string, unknown> {
  return JSON.parse((packet as { payload: Buffer }).payload.toString('utf8'));
}

/**
 * Repeats an update until one is delivered (bounded): the positive control that a subscription or
 * session took effect. Answers every update payload received, in order, without taking them from
 * the client.
 */
async function untilDelivered(
  client: RawClient,
  update: (n: number) => Promise<void>,
): Promise<Array<Record<string, unknown>>> {
  const publishes = () =>
    client.received.filter((packet) => packet.cmd === 'publish').map(payloadOf);
  for (let n = 0; n < 200 && publishes().length === 0; n++) {
    await update(n);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return publishes();
}

test('the scheduler is synchronous without asynchrony, and replays its delays from a seed', () => {
  const ran: string[] = [];
  const synchronous = new Scheduler();
  synchronous.later('attributeUpdate', () => ran.push('at once'));
  assert.deepEqual(ran, ['at once']);
  const draws = (seed: number) => {
    const random = mulberry32(seed);
    return Array.from({ length: 8 }, () => drawDelay(random, UPDATE_BOUNDS));
  };
  assert.deepEqual(draws(42), draws(42));
  assert.notDeepEqual(draws(42), draws(43));
});

/** Connects a device, subscribes, and answers the n of each of UPDATES updates in arrival order. */
async function deliveredOrder(seed: number): Promise<number[]> {
  return withPlatform(
    {
      seed,
      delaysMs: { subscription: { minMs: 0, maxMs: 0 }, attributeUpdate: UPDATE_BOUNDS },
    },
    async (platform, jwt, port) => {
      const device = await newDevice(platform.httpUrl, jwt, `async-order-${seed}`);
      const client = await RawClient.open(port, 4);
      try {
        await client.connect(device.token);
        await client.subscribe([{ topic: 'v1/devices/me/attributes', qos: 1 }]);
        // the subscription's zero delay has passed once a macrotask has run (timers of 0 ms fire in
        // order)
        await new Promise((resolve) => setTimeout(resolve, 0));
        for (let n = 0; n < UPDATES; n++) await saveShared(platform, jwt, device.id, { n });
        const order: number[] = [];
        for (let n = 0; n < UPDATES; n++)
          order.push(payloadOf(await client.next('publish')).n as number);
        return order;
      } finally {
        client.close();
      }
    },
  );
}

test('the same seed delivers attribute updates in the same order, which is not the order they were sent in', async () => {
  const { seed, order } = separatedSeed();
  const first = await deliveredOrder(seed);
  const second = await deliveredOrder(seed);
  assert.deepEqual(first, order, 'the arrival order is the order of the seeded delays');
  assert.deepEqual(second, first, 'the same seed replays the same order');
  assert.notDeepEqual(
    first,
    Array.from({ length: UPDATES }, (_, n) => n),
    'reordered: an update overtook one sent before it',
  );
});

test('an update saved right after the SUBACK, while the subscription is not yet active, is dropped', async () => {
  await withPlatform(
    {
      seed: 7,
      // the subscription takes effect 1.5 s after its SUBACK; updates are delivered at once
      delaysMs: {
        subscription: { minMs: 1500, maxMs: 1500 },
        attributeUpdate: { minMs: 0, maxMs: 0 },
      },
    },
    async (platform, jwt, port) => {
      const device = await newDevice(platform.httpUrl, jwt, 'async-dropped');
      const client = await RawClient.open(port, 4);
      try {
        await client.connect(device.token);
        assert.deepEqual(
          await client.subscribe([{ topic: 'v1/devices/me/attributes', qos: 1 }]),
          [1],
        );
        await saveShared(platform, jwt, device.id, { early: 1 });
        const delivered = await untilDelivered(client, (n) =>
          saveShared(platform, jwt, device.id, { late: n }),
        );
        assert.ok(
          delivered.length > 0,
          'an update after the subscription took effect is delivered',
        );
        assert.ok(
          delivered.every((update) => !('early' in update)),
          'the update before it was dropped, not delayed',
        );
      } finally {
        client.close();
      }
    },
  );
});

test('a gateway device connected but not yet registered does not get an update; once registered it does', async () => {
  await withPlatform(
    {
      seed: 11,
      delaysMs: {
        subscription: { minMs: 0, maxMs: 0 },
        gatewaySession: { minMs: 1500, maxMs: 1500 },
        attributeUpdate: { minMs: 0, maxMs: 0 },
      },
    },
    async (platform, jwt, port) => {
      const client = await RawClient.open(port, 4);
      try {
        await client.connect(platform.demo.gatewayToken);
        await client.subscribe([{ topic: 'v1/gateway/attributes', qos: 1 }]);
        const name = `async-gw-${Date.now()}`;
        await client.publish('v1/gateway/connect', JSON.stringify({ device: name }), 5);
        await client.next('puback');
        const devices = await call(
          platform.httpUrl,
          'GET',
          `/api/tenant/devices?deviceName=${encodeURIComponent(name)}`,
          { jwt },
        );
        assert.equal(devices.status, 200, 'the device exists once the PUBACK came');
        const id = devices.json.id.id as string;
        await saveShared(platform, jwt, id, { early: 1 });
        const delivered = await untilDelivered(client, (n) =>
          saveShared(platform, jwt, id, { late: n }),
        );
        assert.ok(delivered.length > 0, 'an update after the registration is delivered');
        assert.equal(delivered[0].device, name);
        assert.ok(
          delivered.every((update) => !('early' in (update.data as object))),
          'the update before it was dropped',
        );
      } finally {
        client.close();
      }
    },
  );
});
