/**
 * `iotc certify --listen/--advertise/--http-port/--mqtt-port` (issue 28, the bench): the URLs given
 * to the client carry the advertised host with each server's own scheme and port; a real session on
 * 127.0.0.2 with fixed ports is shown by the command line in docs/reference/certification.md (kept
 * to loopback).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { advertised } from '../../src/certify/certify-device';

test('an advertised host replaces the listening one, each URL keeping its scheme and port', () => {
  assert.equal(advertised('http://0.0.0.0:8080', 'http://192.0.2.20'), 'http://192.0.2.20:8080');
  assert.equal(advertised('mqtt://0.0.0.0:1883', 'http://192.0.2.20'), 'mqtt://192.0.2.20:1883');
  assert.equal(advertised('mqtt://0.0.0.0:1883', 'bench.local'), 'mqtt://bench.local:1883');
  assert.equal(
    advertised('http://127.0.0.1:9000/certify', 'http://127.0.0.2'),
    'http://127.0.0.2:9000/certify',
  );
  assert.equal(advertised('http://127.0.0.1:8080', undefined), 'http://127.0.0.1:8080');
});
