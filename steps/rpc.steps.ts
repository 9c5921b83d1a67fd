/**
 * Server-side RPC both ways through the long-poll (also persistent RPC, read back by its id), and
 * client-side RPC.
 */
import assert from 'node:assert/strict';
import { Then, When } from './support/cucumber';
import { rpcRequestSchema } from '../schemas';
import { stringifyLossless } from '../lib/kv/values';
import type { IotcWorld } from './world';
import { answerOf } from './support/answer-of';
import { sameJson } from './support/expectations';
import { GiveUp } from './support/eventually';
import { assertRpcStatus, noteRpcCallSent } from './support/rpc-answer';
When(
  /^the platform sends a (one-way|two-way) RPC "([^"]*)" with params (.+) to "([^"]*)"$/,
  function (this: IotcWorld, kind: string, method: string, params: string, local: string) {
    const device = this.device(local);
    const call = this.run.admin.rpc(device.record.id, kind === 'one-way' ? 'oneway' : 'twoway', {
      method,
      params: JSON.parse(params),
      timeout: 10_000,
    });
    noteRpcCallSent(this, local);
    this.pending.start('rpcCall', local, call);
    this.pending.start('rpcCall', `${local}:${method}`, call);
  },
);

When(
  /^the platform sends a persistent two-way RPC "([^"]*)" with params (.+) to "([^"]*)"$/,
  async function (this: IotcWorld, method: string, params: string, local: string) {
    // returns once the platform answered with the RPC's id: from here on the RPC is stored and
    // queued
    const rpcId = await this.run.admin.sendPersistentRpc(this.device(local).record.id, 'twoway', {
      method,
      params: JSON.parse(params),
      timeout: 10_000,
    });
    this.ids.set('persistentRpc', local, rpcId);
  },
);

function persistentRpcId(world: IotcWorld, local: string): string {
  const rpcId = world.ids.get('persistentRpc', local);
  assert.ok(rpcId, `the platform sent no persistent RPC to "${local}"`);
  return rpcId;
}

Then(
  /^the platform's persistent RPC to "([^"]*)" is (QUEUED)$/,
  async function (this: IotcWorld, local: string, status: string) {
    const rpc = await this.run.admin.getPersistentRpc(persistentRpcId(this, local));
    assert.equal(rpc.status, status, `the persistent RPC is ${rpc.status}, expected ${status}`);
  },
);

Then(
  /^the platform's persistent RPC to "([^"]*)" eventually is SUCCESSFUL with the response (.+)$/,
  async function (this: IotcWorld, local: string, expected: string) {
    const rpcId = persistentRpcId(this, local);
    await this.eventually(async () => {
      const rpc = await this.run.admin.getPersistentRpc(rpcId);
      const shown = this.redact(stringifyLossless(rpc.response));
      // an RPC that ended otherwise, or succeeded with another response, stays so: no use waiting
      const final =
        rpc.status === 'SUCCESSFUL' || rpc.status === 'EXPIRED' || rpc.status === 'FAILED';
      const fail = (message: string) => {
        throw final ? new GiveUp(message) : new Error(message);
      };
      if (rpc.status !== 'SUCCESSFUL')
        fail(`the persistent RPC is ${rpc.status} (response ${shown}), expected SUCCESSFUL`);
      if (!sameJson(rpc.response, expected)) fail(`its response is ${shown}, expected ${expected}`);
    });
  },
);

When(
  'the device {string} polls for an RPC without a timeout parameter',
  function (this: IotcWorld, local: string) {
    this.pending.start('rpcPoll', local, this.device(local).driver.pollRpc());
  },
);

When(
  'the device {string} polls for an RPC for up to {int} ms',
  function (this: IotcWorld, local: string, timeoutMs: number) {
    this.pending.start('rpcPoll', local, this.device(local).driver.pollRpc(timeoutMs));
  },
);

async function receivedRequest(
  world: IotcWorld,
  local: string,
): Promise<{ id: number; method: string; params: unknown }> {
  const response = await world.pending.get('rpcPoll', local);
  assert.ok(response, 'the device did not poll for an RPC');
  assert.equal(response.status, 200, `the RPC poll answered ${world.shown(response)}`);
  return answerOf(rpcRequestSchema, response, 'GET /api/v1/{token}/rpc (the RPC poll)');
}

Then(
  /^the device "([^"]*)" receives the RPC request "([^"]*)" with params (.+)$/,
  async function (this: IotcWorld, local: string, method: string, params: string) {
    const request = await receivedRequest(this, local);
    assert.equal(request.method, method);
    assert.deepEqual(request.params, JSON.parse(params));
    this.polledRpcIds.set(local, request.id);
  },
);

When(
  /^the device "([^"]*)" replies to that RPC with (.+)$/,
  async function (this: IotcWorld, local: string, reply: string) {
    const id = this.polledRpcIds.get(local);
    assert.ok(id !== undefined, 'the device has received no RPC request to reply to');
    this.response = await this.device(local).driver.replyRpc(id, { raw: reply });
  },
);

Then(
  /^the platform's RPC call to "([^"]*)" answers (\d+) with (.+)$/,
  async function (this: IotcWorld, local: string, status: string, expected: string) {
    const answer = await this.pending.get('rpcCall', local);
    assert.ok(answer, 'the platform sent no RPC');
    assertRpcStatus(this, local, answer, Number(status), this.shown(answer));
    assert.ok(
      sameJson(answer.json, expected),
      `the RPC call answered ${this.shown(answer)}, expected ${expected}`,
    );
  },
);

Then(
  /^the platform's RPC call to "([^"]*)" answers (\d+)$/,
  async function (this: IotcWorld, local: string, status: string) {
    const answer = await this.pending.get('rpcCall', local);
    assert.ok(answer, 'the platform sent no RPC');
    assertRpcStatus(this, local, answer, Number(status), this.shown(answer));
  },
);

Then(
  'the RPC poll of {string} times out with {int} and an empty body after at least {int} ms',
  async function (this: IotcWorld, local: string, status: number, minimumMs: number) {
    const response = await this.pending.get('rpcPoll', local);
    assert.ok(response, 'the device did not poll for an RPC');
    assert.equal(response.status, status, `the RPC poll answered ${this.shown(response)}`);
    assert.equal(response.text, '', 'a timed-out poll has an empty body');
    assert.ok(
      response.elapsedMs >= minimumMs * 0.95,
      `the poll ended after ${Math.round(response.elapsedMs)} ms, before its timeout of ${minimumMs} ms`,
    );
  },
);

When(
  /^the device "([^"]*)" sends the client-side RPC (.+)$/,
  async function (this: IotcWorld, local: string, body: string) {
    this.response = await this.device(local).driver.clientRpc({ raw: body });
  },
);
