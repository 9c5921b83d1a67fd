/**
 * The event hub (simulators/platform/core/event-hub.ts): EventEmitter's semantics whether a device
 * has one subscriber to an event (held as itself) or several (an array), for listeners and routers
 * (one object subscribed to many devices, told which device an event is of) alike.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  type DeviceEvents,
  type DeviceRouter,
  EventHub,
  type SharedAttributesChange,
} from '../../simulators/platform/core/event-hub';

const change: SharedAttributesChange = { updated: new Map(), deleted: ['k'] };

/** A router that writes down every event it is told of. */
function recordingRouter(name: string, calls: string[]): DeviceRouter {
  return {
    routed<E extends keyof DeviceEvents>(
      deviceId: string,
      event: E,
      ...args: Parameters<DeviceEvents[E]>
    ): void {
      calls.push(`${name}:${deviceId}:${event}:${args.length}`);
    },
  };
}

test('listeners and routers run in subscription order, a lone one as well as several', () => {
  const hub = new EventHub();
  const calls: string[] = [];
  const router = recordingRouter('router', calls);
  hub.add('d1', 'shared', (received) => {
    assert.equal(received, change);
    calls.push('first');
  });
  hub.emit('d1', 'shared', change);
  assert.deepEqual(calls, ['first']);
  hub.add('d1', 'shared', router);
  hub.add('d2', 'shared', router);
  const off = hub.on('d1', 'shared', () => calls.push('last'));
  calls.length = 0;
  hub.emit('d1', 'shared', change);
  hub.emit('d2', 'shared', change);
  hub.emit('d2', 'rpc');
  assert.deepEqual(calls, ['first', 'router:d1:shared:1', 'last', 'router:d2:shared:1']);
  off();
  hub.off('d1', 'shared', router);
  calls.length = 0;
  hub.emit('d1', 'shared', change);
  assert.deepEqual(calls, ['first']);
  assert.ok(hub.hasListeners('d2', 'shared'));
  assert.ok(!hub.hasListeners('d2', 'rpc'));
  hub.off('d2', 'shared', router);
  assert.ok(!hub.hasListeners('d2', 'shared'));
});

test('the same subscriber twice runs twice and is unsubscribed once per off', () => {
  const hub = new EventHub();
  const calls: string[] = [];
  const router = recordingRouter('r', calls);
  hub.add('d', 'deleted', router);
  hub.add('d', 'deleted', router);
  hub.emit('d', 'deleted');
  assert.deepEqual(calls, ['r:d:deleted:0', 'r:d:deleted:0']);
  hub.off('d', 'deleted', router);
  calls.length = 0;
  hub.emit('d', 'deleted');
  assert.deepEqual(calls, ['r:d:deleted:0']);
  hub.off('d', 'deleted', router);
  hub.off('d', 'deleted', router); // not subscribed any more: nothing happens
  assert.ok(!hub.hasListeners('d', 'deleted'));
});

test('an emit runs the subscribers it started with, whatever (un)subscribes meanwhile', () => {
  const hub = new EventHub();
  const calls: string[] = [];
  const second = () => calls.push('second');
  const late = () => calls.push('late');
  hub.add('d', 'rpc', () => {
    calls.push('first');
    hub.off('d', 'rpc', second);
    hub.add('d', 'rpc', late);
  });
  hub.add('d', 'rpc', second);
  hub.emit('d', 'rpc');
  assert.deepEqual(calls, ['first', 'second']);
  calls.length = 0;
  // a lone subscriber that subscribes another: the new one waits for the next emit
  const lone = new EventHub();
  lone.add('d', 'rpc', () => {
    calls.push('lone');
    lone.add('d', 'rpc', late);
  });
  lone.emit('d', 'rpc');
  assert.deepEqual(calls, ['lone']);
  lone.emit('d', 'rpc');
  assert.deepEqual(calls, ['lone', 'lone', 'late']);
});
