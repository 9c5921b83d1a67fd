/**
 * MQTT gateway steps: attribute requests and the downlink (shared attribute updates and RPC to
 * devices behind the gateway).
 */
import assert from 'node:assert/strict';
import { setTimeout as awaitFor } from 'node:timers/promises';
import { Then, When } from './support/cucumber';
import {
  GATEWAY_TOPICS,
  type AttributeResponse,
  type AttributeUpdate,
  type GatewayRpcRequest,
} from '../simulators/gateway/mqtt-gateway';
import { jsonEqual, parseLossless } from '../lib/kv/values';
import { gatewayAttributeAnswerSchema } from '../schemas/target-answers';
import type { IotcWorld } from './world';
import { answerOf } from './support/answer-of';
import { sameJson } from './support/expectations';
import {
  DELAY_KINDS,
  PROBE_KEY,
  awaitQuietWindow,
  carriesProbe,
  nextProbeValue,
  proveDelivery,
  quietFloorMs,
  readinessProofSkipped,
  setProbe,
  withoutProbe,
} from './support/readiness';
import {
  measuredDelays,
  NotEffective,
  quietWindowMs,
  refuseIfStallExplains,
  untilEffective,
} from './support/timing';

const ATTRIBUTE_REQUEST = 'the gateway attribute request (v1/gateway/attributes/request)';

// ---- attribute requests
// ---------------------------------------------------------------------------------------

When(
  /^the gateway "([^"]*)" requests attributes of "([^"]*)" with (.+)$/,
  async function (this: IotcWorld, gateway: string, local: string, request: string) {
    const fields = JSON.parse(request) as Record<string, unknown>;
    const answer = await this.gateway(gateway).driver.requestAttributes({
      device: this.platformCreatedDevice(local),
      ...fields,
    } as never);
    this.lastPublish = answer.publish;
    this.gatewayAttributeResponses.set(gateway, answer.response);
  },
);

Then(
  /^the gateway "([^"]*)" receives on v1\/gateway\/attributes\/response an answer with the id of its request for "([^"]*)"$/,
  async function (this: IotcWorld, gateway: string, local: string) {
    const response = this.gatewayAttributeResponses.get(gateway);
    assert.ok(response, 'the gateway sent no attribute request');
    assert.equal(
      typeof response.id,
      'number',
      `the answer ${this.redact(response.raw)} has no integer id`,
    );
    if (response.device !== undefined)
      assert.equal(response.device, this.device(local).record.name);
  },
);

function attributeAnswer(world: IotcWorld, gateway: string): AttributeResponse {
  const response = world.gatewayAttributeResponses.get(gateway);
  assert.ok(response, 'the gateway sent no attribute request');
  return response;
}

/**
 * The attributes an answer carries, by key. The answer's payload is not fixed by
 * docs/reference/interfaces.md (GW-ATTRREQ-03), so the shapes in use are read, and only where they
 * put attributes: members of `client` and `shared` (the device API's shape, which the reference
 * answers to docs/reference/interfaces.md's request), members of `values`, or `value`
 * (ThingsBoard's answer to a request for one key, `valueKey` being that key). Never a member at any
 * depth.
 */
function answeredAttributes(
  document: Record<string, unknown>,
  valueKey: string | undefined,
): Map<string, unknown> {
  const found = new Map<string, unknown>();
  for (const member of ['client', 'shared', 'values']) {
    const scope = document[member];
    if (scope && typeof scope === 'object' && !Array.isArray(scope))
      for (const [key, value] of Object.entries(scope)) found.set(key, value);
  }
  if (valueKey !== undefined && Object.hasOwn(document, 'value'))
    found.set(valueKey, document.value);
  return found;
}

Then(
  /^the gateway's attribute answer for "([^"]*)" holds (?!no attribute )(.+)$/,
  async function (this: IotcWorld, gateway: string, expected: string) {
    const response = attributeAnswer(this, gateway);
    const wanted = Object.entries(JSON.parse(expected) as Record<string, unknown>);
    const found = answeredAttributes(
      answerOf(
        gatewayAttributeAnswerSchema,
        { json: parseLossless(response.raw), text: response.raw },
        ATTRIBUTE_REQUEST,
      ),
      wanted.length === 1 ? wanted[0]![0] : undefined,
    );
    for (const [key, value] of wanted) {
      assert.ok(
        found.has(key) && jsonEqual(found.get(key), value),
        `the answer ${this.redact(response.raw)} does not hold ${key} = ${JSON.stringify(value)}`,
      );
    }
  },
);

Then(
  /^the gateway's attribute answer for "([^"]*)" holds no attribute "([^"]*)"$/,
  async function (this: IotcWorld, gateway: string, key: string) {
    const response = attributeAnswer(this, gateway);
    const found = answeredAttributes(
      answerOf(
        gatewayAttributeAnswerSchema,
        { json: parseLossless(response.raw), text: response.raw },
        ATTRIBUTE_REQUEST,
      ),
      undefined,
    );
    assert.ok(
      !found.has(key),
      `the answer ${this.redact(response.raw)} holds ${key}, which was not requested`,
    );
  },
);

// ---- downlink: shared attribute updates and RPC
// ---------------------------------------------------------------

Then(
  /^the gateway "([^"]*)" receives an attribute update for "([^"]*)" with (?!exactly )(.+)$/,
  async function (this: IotcWorld, gateway: string, local: string, expected: string) {
    const name = this.device(local).record.name;
    const wanted = JSON.parse(expected) as Record<string, unknown>;
    const matches = (data: Record<string, unknown>) =>
      Object.entries(wanted).every(([key, value]) => jsonEqual(data[key], value));
    const driver = this.gateway(gateway).driver;
    const seen = driver.attributeUpdates.find(
      (update) => update.device === name && matches(update.data),
    );
    const update =
      seen ??
      (await driver.nextAttributeUpdate(name, this.run.target.timeouts.eventuallyMs, (candidate) =>
        matches(candidate.data),
      ));
    assert.ok(
      update,
      `no update of ${JSON.stringify(wanted)} for ${local} reached the gateway; it received ${JSON.stringify(driver.attributeUpdates.map((u) => u.data))}`,
    );
    this.gatewayUpdatesSeen.set(gateway, driver.attributeUpdates.indexOf(update));
  },
);

Then(
  /^the gateway "([^"]*)" receives an attribute update for "([^"]*)" with exactly (.+)$/,
  async function (this: IotcWorld, gateway: string, local: string, expected: string) {
    const name = this.device(local).record.name;
    const driver = this.gateway(gateway).driver;
    // the update this step waits for is the first for the device after the one the scenario awaited
    // before; the harness's own readiness probes are not updates under test
    // (steps/support/readiness.ts)
    const seen = this.gatewayUpdatesSeen.get(gateway) ?? -1;
    const underTest = (candidate: AttributeUpdate) =>
      candidate.device === name && withoutProbe(candidate.data) !== undefined;
    const update =
      driver.attributeUpdates.find((candidate, index) => index > seen && underTest(candidate)) ??
      (await driver.nextAttributeUpdate(name, this.run.target.timeouts.eventuallyMs, underTest));
    assert.ok(
      update,
      `no further update for ${local} reached the gateway; it received ${JSON.stringify(driver.attributeUpdates.map((u) => u.data))}`,
    );
    const data = (parseLossless(update.raw) as { data?: unknown }).data;
    const compared =
      data !== null && typeof data === 'object' && !Array.isArray(data)
        ? withoutProbe(data as Record<string, unknown>)
        : data;
    assert.ok(
      sameJson(compared, expected),
      `the update for ${local} carries ${JSON.stringify(update.data)}, expected exactly ${expected} (the harness's ${PROBE_KEY} aside)`,
    );
    this.gatewayUpdatesSeen.set(gateway, driver.attributeUpdates.indexOf(update));
  },
);

/**
 * Counts the updates of a device other than the latest one this scenario waited for, by content and
 * not by arrival order: after a quiet window derived from the delivery delays the run measured
 * (timing.ts quietWindowMs), every update of the device the gateway received, the harness's
 * readiness probes aside, but that one must number exactly `count`. A duplicate that comes late is
 * counted too.
 */
Then(
  /^besides it, the gateway "([^"]*)" received exactly (\d+) attribute updates? for "([^"]*)"$/,
  async function (this: IotcWorld, gateway: string, count: string, local: string) {
    const name = this.device(local).record.name;
    const driver = this.gateway(gateway).driver;
    const seen = this.gatewayUpdatesSeen.get(gateway) ?? -1;
    assert.ok(seen >= 0, 'no attribute update was awaited before');
    await awaitQuietWindow(this, DELAY_KINDS.gatewayUpdate, `counting the updates for ${local}`);
    const others = driver.attributeUpdates.filter(
      (update, index) =>
        index !== seen && update.device === name && withoutProbe(update.data) !== undefined,
    );
    assert.equal(
      others.length,
      Number(count),
      `the gateway received ${others.length} updates for ${local} besides the latest: ${JSON.stringify(others.map((u) => u.data))}`,
    );
  },
);

// ---- readiness proofs, and the eventual effect of a disconnect (steps/support/readiness.ts)
// -------------------

/**
 * The positive control before an update under test: ThingsBoard acknowledges a gateway connect
 * before the device's session and attribute subscription are effective, and drops an update that
 * comes in between. Probe updates are set until one reaches the gateway; the delay is recorded for
 * the quiet windows.
 */
Then(
  /^the platform's attribute updates for "([^"]*)" are proven to reach the gateway "([^"]*)"$/,
  async function (this: IotcWorld, local: string, gateway: string) {
    if (readinessProofSkipped()) return;
    const name = this.device(local).record.name;
    const driver = this.gateway(gateway).driver;
    await proveDelivery(
      this,
      local,
      `the platform's attribute updates for ${local} reach the gateway ${gateway}`,
      DELAY_KINDS.gatewayUpdate,
      (value) =>
        driver.attributeUpdates.some(
          (update) => update.device === name && carriesProbe(update.data, value),
        ),
      () => driver.attributeUpdates.filter((update) => update.device === name).map((u) => u.raw),
    );
  },
);

/**
 * A disconnect is acknowledged before the platform removes the device's session, and updates of
 * different devices (different device actors on ThingsBoard) may arrive in any order, so "nothing
 * more arrives for the device" is eventual: rounds of probes, first on the disconnected device then
 * on one still connected, played on untilEffective's growing cadence for eventuallyMs whatever the
 * rounds before them show. A round proves the disconnect when its probe for the connected device
 * arrived and the one for the disconnected device did not within a quiet window from when it was
 * set (derived from the measured delivery delays); judging a round never holds up the next one.
 * When eventuallyMs is spent, the rounds still in flight get their quiet window too, then the step
 * FAILs only on what the rounds showed: a round whose two probes both arrived (the device stays
 * connected), or no probe for the connected device at all (its updates stopped too). Judging the
 * rounds one after the other, each waiting out its window, had left three rounds played within
 * 130 ms of the PUBACK, all before the twin's removal (up to 300 ms), and a false FAIL when
 * updates took up to 3 s.
 */
Then(
  /^eventually the attribute updates for "([^"]*)" still reach the gateway "([^"]*)" and those for "([^"]*)" no longer do$/,
  async function (this: IotcWorld, kept: string, gateway: string, dropped: string) {
    const driver = this.gateway(gateway).driver;
    const keptName = this.device(kept).record.name;
    const droppedName = this.device(dropped).record.name;
    const since = driver.attributeUpdates.length;
    const started = performance.now();
    const startedWall = Date.now();
    const arrived = (name: string, value: number) =>
      driver.attributeUpdates.find(
        (update) => update.device === name && carriesProbe(update.data, value),
      );
    const timeouts = this.run.target.timeouts;
    const floor = quietFloorMs(this);
    interface Round {
      dropped: number;
      kept: number;
      setAt: number;
      setWallAt: number;
      /** The delay of its probe for `kept`, once recorded for the quiet windows. */
      keptDelayMs?: number;
    }
    const rounds: Round[] = [];
    const playRound = async (attempt: number) => {
      const round: Round = {
        dropped: nextProbeValue(),
        kept: nextProbeValue(),
        setAt: performance.now(),
        setWallAt: Date.now(),
      };
      rounds[attempt - 1] = round;
      await setProbe(this, dropped, round.dropped);
      await setProbe(this, kept, round.kept);
    };
    /**
     * What a round shows now: 'proves' (its probe for `kept` came and the one for `dropped` did not
     * within the quiet window from when it was set), 'connected' (the probe for `dropped` came),
     * 'lost' (its window is over and the probe for `kept` never came) or undefined (still open).
     * The delay of the probe for `kept` is recorded for the quiet windows: a positive control
     * measured in this scenario.
     */
    const shows = (round: Round): 'proves' | 'connected' | 'lost' | undefined => {
      if (arrived(droppedName, round.dropped)) return 'connected';
      const keptUpdate = arrived(keptName, round.kept);
      if (keptUpdate && round.keptDelayMs === undefined) {
        round.keptDelayMs = keptUpdate.receivedAt - round.setWallAt;
        measuredDelays.record(DELAY_KINDS.gatewayUpdate, round.keptDelayMs);
      }
      const windowOver =
        performance.now() >=
        round.setAt + quietWindowMs(DELAY_KINDS.gatewayUpdate, timeouts, floor);
      if (!windowOver) return undefined;
      return keptUpdate ? 'proves' : 'lost';
    };
    const proven = () => rounds.some((round) => shows(round) === 'proves');
    /** Waits until every round played shows something (each one's quiet window is bounded). */
    const settle = async () => {
      while (!proven() && rounds.some((round) => shows(round) === undefined)) {
        await awaitFor(timeouts.pollIntervalMs);
        // a turn of the loop for the sockets: a probe that came while the timer waited is read
        // before a round's window is judged over
        await new Promise((resolve) => setImmediate(resolve));
      }
      return proven();
    };
    const shown = () => {
      const late = driver.attributeUpdates
        .slice(since)
        .filter((update) => update.device === droppedName)
        .map((update) => update.data);
      const count = (what: ReturnType<typeof shows>) =>
        rounds.filter((round) => shows(round) === what).length;
      const last = rounds.at(-1);
      const span = last ? ` set over ${Math.round(last.setAt - started)} ms after the PUBACK` : '';
      return `of ${rounds.length} rounds of probes${span}, ${count('connected')} delivered the probe for ${dropped} and ${rounds.length - count('lost')} the one for ${kept}; after its disconnect's PUBACK the gateway received ${late.length} updates for ${dropped}: ${JSON.stringify(late)}`;
    };
    /** Which round proved the disconnect, and when it was set. */
    const proof = () => {
      const index = rounds.findIndex((round) => shows(round) === 'proves');
      return `round ${index + 1}, set ${Math.round(rounds[index]!.setAt - started)} ms after the PUBACK, proved it`;
    };
    if (readinessProofSkipped()) {
      // the harness fault: one round, as the suite did before
      await playRound(1);
      await driver.nextAttributeUpdate(keptName, timeouts.eventuallyMs, (update) =>
        carriesProbe(update.data, rounds[0]!.kept),
      );
      assert.ok(await settle(), `${dropped} stays connected: ${shown()}`);
      return;
    }
    try {
      const outcome = await untilEffective(
        `the disconnect of ${dropped} from the gateway ${gateway}`,
        DELAY_KINDS.disconnect,
        playRound,
        proven,
        timeouts,
      );
      this.log(
        `the disconnect of ${dropped} took effect: ${proof()} (${outcome.tries} rounds played)`,
      );
    } catch (error) {
      if (!(error instanceof NotEffective)) throw error;
      if (await settle()) {
        this.log(
          `the disconnect of ${dropped} took effect: ${proof()}, seen after eventuallyMs was spent (${rounds.length} rounds played)`,
        );
        return;
      }
      if (rounds.every((round) => shows(round) === 'lost')) {
        // no probe came at all: a harness that stood still for half a quiet window did not watch
        refuseIfStallExplains(
          { harnessMs: this.stalls.worstBetween(startedWall) },
          quietWindowMs(DELAY_KINDS.gatewayUpdate, timeouts, floor) / 2,
          `waiting for the probes for ${kept}`,
        );
        assert.fail(`the updates for ${kept} stopped too: ${shown()}`);
      }
      assert.fail(`${dropped} stays connected: ${shown()}`);
    }
  },
);

/**
 * Nothing may reach the gateway for the device: watched for a quiet window derived from the
 * measured delivery delays (the update that must not arrive and the positive control are for
 * different devices, whose order of arrival is not fixed).
 */
Then(
  /^the gateway "([^"]*)" receives no attribute update for "([^"]*)" within a quiet window$/,
  async function (this: IotcWorld, gateway: string, local: string) {
    await awaitQuietWindow(this, DELAY_KINDS.gatewayUpdate, `watching the updates for ${local}`);
    const name = this.device(local).record.name;
    const update = this.gateway(gateway).driver.attributeUpdates.find((u) => u.device === name);
    assert.equal(
      update,
      undefined,
      `an update for ${local} reached the gateway: ${JSON.stringify(update?.data)}`,
    );
  },
);

/**
 * After the platform's call ended without an answer the RPC has expired and can no longer be
 * delivered (ThingsBoard keeps an RPC for a device without an RPC subscription pending and drops it
 * at its expiry, DeviceActorMessageProcessor.java:209-246 and 337-360 under /root/tbw/tb): none
 * with that method may have come. An RPC sent before the subscription is effective is not lost
 * (pushed on subscription, :369 and :778), so an RPC right after a connect needs no readiness
 * proof.
 */
Then(
  /^the gateway "([^"]*)" received no RPC "([^"]*)" for "([^"]*)"$/,
  function (this: IotcWorld, gateway: string, method: string, local: string) {
    const name = this.device(local).record.name;
    const request = this.gateway(gateway).driver.rpcRequests.find(
      (r) => r.device === name && r.method === method,
    );
    assert.equal(
      request,
      undefined,
      `the RPC ${method} for ${local} reached the gateway: ${JSON.stringify(request)}`,
    );
  },
);

/**
 * A positive control stands in for a fixed "nothing arrives" window: the step follows the arrival
 * of an RPC that the platform was asked for after the one that must not arrive. (ThingsBoard's
 * device actors are independent, so this order is a weak bracket for RPCs of two devices; it never
 * FAILs a conforming target.)
 */
Then(
  /^before that, the gateway "([^"]*)" received no RPC for "([^"]*)"$/,
  function (this: IotcWorld, gateway: string, local: string) {
    const name = this.device(local).record.name;
    const request = this.gateway(gateway).driver.rpcRequests.find((r) => r.device === name);
    assert.equal(
      request,
      undefined,
      `an RPC for ${local} reached the gateway: ${JSON.stringify(request)}`,
    );
  },
);

Then(
  /^the gateway "([^"]*)" received the RPC "([^"]*)" for "([^"]*)" exactly once$/,
  async function (this: IotcWorld, gateway: string, method: string, local: string) {
    const name = this.device(local).record.name;
    // a duplicate may come late: counted after a quiet window of the downlink's measured delays (an
    // RPC takes the same path to the gateway as an attribute update: the device's actor, then its
    // gateway session)
    await awaitQuietWindow(
      this,
      DELAY_KINDS.gatewayUpdate,
      `counting the RPCs ${method} for ${local}`,
    );
    const copies = this.gateway(gateway).driver.rpcRequests.filter(
      (request) => request.device === name && request.method === method,
    );
    assert.equal(
      copies.length,
      1,
      `the RPC ${method} for ${local} reached the gateway ${copies.length} times: ${JSON.stringify(copies)}`,
    );
  },
);

async function receivedRpc(
  world: IotcWorld,
  gateway: string,
  local: string,
  timeoutMs: number,
): Promise<GatewayRpcRequest | undefined> {
  const name = world.device(local).record.name;
  const driver = world.gateway(gateway).driver;
  const taken = world.gatewayRpcsTaken.get(gateway) ?? new Set<string>();
  const fresh = (request: GatewayRpcRequest) =>
    request.device === name && !taken.has(`${name}#${request.id}`);
  const request = driver.rpcRequests.find(fresh) ?? (await driver.nextRpcRequest(name, timeoutMs));
  if (request) {
    taken.add(`${name}#${request.id}`);
    world.gatewayRpcsTaken.set(gateway, taken);
  }
  return request;
}

Then(
  /^the gateway "([^"]*)" receives the RPC "([^"]*)" with params (.+) for "([^"]*)"$/,
  async function (this: IotcWorld, gateway: string, method: string, params: string, local: string) {
    const request = await receivedRpc(this, gateway, local, this.run.target.timeouts.eventuallyMs);
    assert.ok(request, `no RPC for ${local} reached the gateway on v1/gateway/rpc`);
    assert.equal(request.method, method);
    // the RPC took the downlink's path (the device's actor, then its gateway session): its delay
    // is one of the gateway's delivery delays, from which the quiet windows after it are derived
    // (a scenario's "exactly once" window was eventuallyMs / 4 in a worker that had measured none)
    const sentAt = this.pending.started('rpcCall', `${local}:${method}`);
    if (sentAt !== undefined && request.receivedAt >= sentAt)
      measuredDelays.record(DELAY_KINDS.gatewayUpdate, request.receivedAt - sentAt);
    assert.ok(Number.isInteger(request.id), `the RPC id ${String(request.id)} is not an integer`);
    assert.ok(
      jsonEqual(request.params, JSON.parse(params)),
      `the RPC params are ${JSON.stringify(request.params)}, expected ${params}`,
    );
    const received = this.gatewayRpcIds.get(local) ?? { latest: request.id, byMethod: new Map() };
    received.latest = request.id;
    received.byMethod.set(method, request.id);
    this.gatewayRpcIds.set(local, received);
  },
);

When(
  /^the gateway "([^"]*)" replies to the RPC "([^"]*)" for "([^"]*)" with (.+)$/,
  async function (this: IotcWorld, gateway: string, method: string, local: string, reply: string) {
    const id = this.gatewayRpcIds.get(local)?.byMethod.get(method);
    assert.ok(id !== undefined, `the gateway has received no RPC ${method} for ${local}`);
    const name = JSON.stringify(this.device(local).record.name);
    this.lastPublish = await this.gateway(gateway).driver.publish(GATEWAY_TOPICS.rpc, {
      raw: `{"device":${name},"id":${id},"data":${reply}}`,
    });
  },
);

Then(
  /^the platform's RPC call "([^"]*)" to "([^"]*)" answers (\d+) with (.+)$/,
  async function (
    this: IotcWorld,
    method: string,
    local: string,
    status: string,
    expected: string,
  ) {
    const answer = await this.pending.get('rpcCall', `${local}:${method}`);
    assert.ok(answer, `the platform sent no RPC ${method}`);
    assert.equal(answer.status, Number(status), `the RPC call answered ${this.shown(answer)}`);
    assert.ok(
      sameJson(answer.json, expected),
      `the RPC call ${method} answered ${this.shown(answer)}, expected ${expected}`,
    );
  },
);

Then(
  "the platform's RPC call to {string} ends without an answer",
  async function (this: IotcWorld, local: string) {
    const answer = await this.pending.get('rpcCall', local);
    assert.ok(answer, 'the platform sent no RPC');
    // docs/reference/platform-facts.md §8, v1 (the admin client's rpc): a call no session took ends
    // 409 (NO_ACTIVE_CONNECTION), one sent but not answered 408 (TIMEOUT)
    // (AbstractRpcController.reply; DeviceActorMessageProcessor:357). A 500 is a crash, not the end
    // of an unanswered call.
    assert.ok(
      [408, 409].includes(answer.status),
      `the RPC call answered ${this.shown(answer)}, expected 409 (no session took it) or 408 (sent, not answered)`,
    );
  },
);

When(
  /^the gateway "([^"]*)" replies to that RPC for "([^"]*)" with (.+)$/,
  async function (this: IotcWorld, gateway: string, local: string, reply: string) {
    const id = this.gatewayRpcIds.get(local)?.latest;
    assert.ok(id !== undefined, `the gateway has received no RPC for ${local}`);
    const deviceName = this.device(local).record.name;
    // a reply naming a device the platform no longer has creates it again: journaled before it can
    // happen
    this.expectCreated('device', deviceName);
    const name = JSON.stringify(deviceName);
    this.lastPublish = await this.gateway(gateway).driver.publish(GATEWAY_TOPICS.rpc, {
      raw: `{"device":${name},"id":${id},"data":${reply}}`,
    });
  },
);

When(
  /^the platform sends a two-way RPC "([^"]*)" with a timeout of (\d+) ms and params (.+) to "([^"]*)"$/,
  function (this: IotcWorld, method: string, timeout: string, params: string, local: string) {
    const device = this.device(local);
    const call = this.run.admin.rpc(device.record.id, 'twoway', {
      method,
      params: JSON.parse(params),
      timeout: Number(timeout),
    });
    this.pending.start('rpcCall', local, call);
    this.pending.start('rpcCall', `${local}:${method}`, call);
  },
);
