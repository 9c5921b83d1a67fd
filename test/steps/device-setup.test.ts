/**
 * How the steps set devices up and take them down with few admin requests: tokens the harness
 * chooses (steps/support/device-tokens.ts) and removal by a known id
 * (steps/support/entity-removal.ts removeNamed).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChosenTokens, randomAccessToken } from '../../steps/support/device-tokens';
import { removeNamed } from '../../steps/support/entity-removal';
import { AdminApiError, type AdminClient } from '../../src/admin-client';

test('a chosen token is trusted once the target has shown it takes one; else every token is read', async () => {
  assert.match(randomAccessToken(), /^[A-Za-z0-9]{20}$/);
  const taking = new ChosenTokens();
  let reads = 0;
  const read = (token: string) => async () => {
    reads++;
    return token;
  };
  const first = taking.next();
  assert.ok(first);
  assert.equal(await taking.tokenOf(first, read(first)), first);
  const second = taking.next();
  assert.ok(second && second !== first);
  assert.equal(await taking.tokenOf(second, read('unused')), second);
  assert.equal(reads, 1, 'only the first device had its credentials read');

  const ignoring = new ChosenTokens();
  const given = ignoring.next();
  assert.equal(await ignoring.tokenOf(given, async () => 'own-token-1'), 'own-token-1');
  assert.equal(ignoring.next(), undefined, 'no token is sent once the target ignored one');
  assert.equal(await ignoring.tokenOf(undefined, async () => 'own-token-2'), 'own-token-2');
});

/** An admin client that knows devices by name and id, and counts what it is asked. */
function fakeAdmin(devices: Map<string, string>): { admin: AdminClient; calls: string[] } {
  const calls: string[] = [];
  const admin = {
    async findDeviceByName(name: string) {
      calls.push(`find ${name}`);
      const id = devices.get(name);
      return id === undefined ? undefined : { id, name };
    },
    async deleteDevice(id: string) {
      calls.push(`delete ${id}`);
      for (const [name, held] of devices)
        if (held === id) {
          devices.delete(name);
          return;
        }
      throw new AdminApiError(
        'DELETE',
        `/api/device/${id}`,
        404,
        32,
        "Requested item wasn't found!",
      );
    },
  } as unknown as AdminClient;
  return { admin, calls };
}

test('removeNamed deletes a known id without a lookup, and looks the name up when that id is gone', async () => {
  const { admin, calls } = fakeAdmin(new Map([['iotc-x-a', 'id-a']]));
  assert.equal(await removeNamed(admin, 'device', 'iotc-x-a', 'id-a'), 'id-a');
  assert.deepEqual(calls, ['delete id-a']);

  // the scenario deleted it, and the platform made another of that name since
  const again = fakeAdmin(new Map([['iotc-x-b', 'id-b2']]));
  assert.equal(await removeNamed(again.admin, 'device', 'iotc-x-b', 'id-b1'), 'id-b2');
  assert.deepEqual(again.calls, ['delete id-b1', 'find iotc-x-b', 'delete id-b2']);

  // gone for good: nothing to delete
  const gone = fakeAdmin(new Map());
  assert.equal(await removeNamed(gone.admin, 'device', 'iotc-x-c', 'id-c'), undefined);
  assert.deepEqual(gone.calls, ['delete id-c', 'find iotc-x-c']);

  // another failure of the delete is not taken for "gone"
  const refusing = fakeAdmin(new Map([['iotc-x-d', 'id-d']]));
  refusing.admin.deleteDevice = async () => {
    throw new AdminApiError('DELETE', '/api/device/id-d', 403, 20, 'forbidden');
  };
  await assert.rejects(removeNamed(refusing.admin, 'device', 'iotc-x-d', 'id-d'), /403/);
});
