/**
 * Two scenarios running at once in one worker (src/engine/staggered-workers.ts,
 * IOTC_SCENARIOS_PER_WORKER) keep their own evidence and their own broken connections
 * (steps/support/scenario-scope.ts): each in cucumber's own test-case scope, as its steps run, with
 * a socket whose error comes after the other scenario has started.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { test } from 'node:test';
import { closedPort } from '../support/closed-port';
import { runInTestCaseScope } from '@cucumber/cucumber/lib/runtime/scope/index';
import { ExchangeLog } from '../../src/report/exchanges';
import { recordExchange, recordInto } from '../../steps/support/evidence';
import {
  brokenConnectionInconclusive,
  clearBrokenConnections,
  noteBrokenConnection,
} from '../../steps/support/transport';

test('each of two scenarios at once records its own exchanges and socket errors', async () => {
  const port = await closedPort();
  let started!: () => void;
  const secondStarted = new Promise<void>((resolve) => {
    started = resolve;
  });
  let noted!: () => void;
  const firstNoted = new Promise<void>((resolve) => {
    noted = resolve;
  });
  const scenario = async (name: string, refuse: boolean) => {
    const world = {};
    return await runInTestCaseScope({ world: world as never }, async () => {
      const log = new ExchangeLog();
      recordInto(log);
      clearBrokenConnections();
      // the second starts (and clears its list) while the first waits, and judges after the
      // first's socket error
      if (name === 'second') {
        started();
        await firstNoted;
      } else await secondStarted;
      if (refuse)
        await new Promise<void>((resolve) => {
          connect(port, '127.0.0.1').on('error', (error) => {
            noteBrokenConnection(error as Error & { code: string });
            noted();
            resolve();
          });
        });
      recordExchange({
        protocol: 'http',
        via: name,
        request: { method: 'GET', url: `/${name}` },
      } as never);
      return { log, verdict: brokenConnectionInconclusive(new Error('no update'), 'waiting') };
    });
  };
  const [first, second] = await Promise.all([scenario('first', true), scenario('second', false)]);
  assert.equal(first.log.total, 1);
  assert.equal(second.log.total, 1);
  assert.match(String(first.verdict?.message), /ECONNREFUSED/);
  assert.equal(second.verdict, undefined);
  // outside a scenario nothing is recorded and no error is noted
  recordExchange({ protocol: 'http', via: 'none', request: { method: 'GET', url: '/' } } as never);
  assert.equal(brokenConnectionInconclusive(new Error('x'), 'y'), undefined);
});
