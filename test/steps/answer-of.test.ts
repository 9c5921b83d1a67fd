/**
 * answerOf at the boundary: a local HTTP server (127.0.0.1, port from the OS) answers the admin
 * client's requests with wrong shapes, and the error names the request, the member and what came
 * instead, with secrets blanked.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { before, test } from 'node:test';
import { adminRequest } from '../../src/admin-client';
import {
  apiKeyPageSchema,
  currentUserSchema,
  loginAnswerSchema,
} from '../../schemas/target-answers';
import { answerOf, TargetAnswerShapeError } from '../../steps/support/answer-of';
import { mintJwt } from '../support/jwt';

let JWT = '';
before(async () => {
  JWT = await mintJwt('tenant@thingsboard.org');
});

/** Answers each path with its fixed body (200, application/json). */
async function serving(bodies: Record<string, string>): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    const body = bodies[request.url ?? ''];
    response.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/json' });
    response.end(body ?? '{}');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function closing(server: Server): Promise<void> {
  server.closeAllConnections();
  server.close();
  await once(server, 'close');
}

test('a login answer without token names the missing members and blanks the JWT', async () => {
  const { server, url } = await serving({ '/api/auth/login': JSON.stringify({ jwt: JWT }) });
  try {
    const answer = await adminRequest(url, 'POST', '/api/auth/login', {
      body: { username: 'tenant@thingsboard.org', password: 'tenant' },
    });
    assert.throws(
      () => answerOf(loginAnswerSchema, answer, 'POST /api/auth/login'),
      (error: unknown) => {
        assert.ok(error instanceof TargetAnswerShapeError);
        assert.equal(error.code, 'IOTC_TARGET_ANSWER_SHAPE');
        assert.equal(error.name, 'TargetAnswerShapeError');
        assert.equal(
          error.message,
          'the target\'s answer to POST /api/auth/login has no token (a string), has no refreshToken (a string): {"jwt":"<redacted>"}',
        );
        return true;
      },
    );
  } finally {
    await closing(server);
  }
});

test('a member of another type is named with its path and value', async () => {
  const { server, url } = await serving({
    '/api/auth/user': '{"id":{"entityType":"USER","id":42},"email":"tenant@thingsboard.org"}',
    '/api/apiKeys/u': '{"data":[{"id":{"id":"k1"}},{"value":"x"}]}',
  });
  try {
    const user = await adminRequest(url, 'GET', '/api/auth/user');
    assert.throws(
      () => answerOf(currentUserSchema, user, 'GET /api/auth/user'),
      /^TargetAnswerShapeError: the target's answer to GET \/api\/auth\/user has id\.id = 42 instead of a string: \{"id":\{"entityType":"USER","id":42\}/,
    );
    const page = await adminRequest(url, 'GET', '/api/apiKeys/u');
    assert.throws(
      () => answerOf(apiKeyPageSchema, page, 'GET /api/apiKeys/u'),
      /has no data\[1\]\.id \(an object\)/,
    );
  } finally {
    await closing(server);
  }
});

test('an answer that is not JSON, or JSON of another type, says so', async () => {
  const { server, url } = await serving({ '/api/auth/login': '[1,2]', '/api/auth/user': 'ok' });
  try {
    const notJson = await adminRequest(url, 'GET', '/api/auth/user');
    assert.throws(
      () => answerOf(currentUserSchema, notJson, 'GET /api/auth/user'),
      /the target's answer to GET \/api\/auth\/user has a body = no JSON body instead of an object: ok$/,
    );
    const list = await adminRequest(url, 'POST', '/api/auth/login');
    assert.throws(
      () => answerOf(loginAnswerSchema, list, 'POST /api/auth/login'),
      /the target's answer to POST \/api\/auth\/login has a body = \[1,2\] instead of an object: \[1,2\]$/,
    );
  } finally {
    await closing(server);
  }
});

test('a well-formed answer comes back typed, numbers as JS numbers, other members kept', async () => {
  const { server, url } = await serving({
    '/api/auth/user':
      '{"id":{"entityType":"USER","id":"u-1"},"email":"tenant@thingsboard.org","createdTime":1700000000000}',
  });
  try {
    const answer = await adminRequest(url, 'GET', '/api/auth/user');
    const user = answerOf(currentUserSchema, answer, 'GET /api/auth/user');
    assert.equal(user.id.id, 'u-1');
    assert.equal(user.email, 'tenant@thingsboard.org');
    assert.equal((user as Record<string, unknown>).createdTime, 1700000000000);
  } finally {
    await closing(server);
  }
});
