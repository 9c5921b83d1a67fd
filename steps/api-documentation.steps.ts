/** The administration API's interactive documentation (Swagger UI and its OpenAPI description). */
import assert from 'node:assert/strict';
import { type DataTable, Then } from '@cucumber/cucumber';
import { apiDescriptionSchema } from '../schemas/target-answers';
import type { IotcWorld } from './world';
import { request } from './support/admin-auth';
import { answerOf } from './support/answer-of';

Then(
  'the interactive documentation page \\/swagger-ui.html is served with its scripts',
  async function (this: IotcWorld) {
    const page = await request(this, 'GET', '/swagger-ui.html', { accept: 'text/html' });
    assert.equal(page.status, 200, `/swagger-ui.html answered ${page.status}`);
    assert.match(page.text, /swagger-ui/i, 'the page is not Swagger UI');
    const scripts = [...page.text.matchAll(/<script[^>]+src="([^"]+)"/g)].map((match) => match[1]);
    assert.ok(scripts.length > 0, 'the page loads no script');
    for (const script of scripts) {
      const path = script.startsWith('http')
        ? new URL(script).pathname
        : script.startsWith('/')
          ? script
          : `/${script}`;
      const answer = await request(this, 'GET', path, { accept: '*/*' });
      assert.equal(answer.status, 200, `${path} answered ${answer.status}`);
    }
  },
);

async function apiDescription(world: IotcWorld) {
  const answer = await request(world, 'GET', '/v3/api-docs');
  assert.equal(answer.status, 200, `/v3/api-docs answered ${answer.status}`);
  return answerOf(apiDescriptionSchema, answer, 'GET /v3/api-docs');
}

/**
 * Whether a documented path template is the expected one: `{}` stands for any path parameter, and a literal may be
 * documented as a parameter too (ThingsBoard documents DEVICE as {entityType}).
 */
function samePath(documented: string, expected: string): boolean {
  const have = documented.split('/');
  const want = expected.split('/');
  const parameter = (segment: string) => /^\{[^}]*\}$/.test(segment);
  return (
    have.length === want.length &&
    want.every((segment, index) =>
      segment === '{}' ? parameter(have[index]) : segment === have[index] || parameter(have[index]),
    )
  );
}

Then(
  'its API description lists these endpoints:',
  async function (this: IotcWorld, table: DataTable) {
    const document = await apiDescription(this);
    // raw(): the table has no header row, every row is an endpoint
    const missing = table.raw().filter(([method, path]) => {
      const operations = Object.entries(document.paths).filter(([documented]) =>
        samePath(documented, path),
      );
      return !operations.some(([, byMethod]) => byMethod[method.toLowerCase()]);
    });
    assert.deepEqual(
      missing.map(([method, path]) => `${method} ${path}`),
      [],
      'endpoints the API description does not list',
    );
  },
);

Then(
  'its API description declares a JWT authorization and an API key authorization',
  async function (this: IotcWorld) {
    const document = await apiDescription(this);
    const schemes = Object.values(document.components?.securitySchemes ?? {});
    const headerSchemes = schemes.filter(
      (scheme) =>
        scheme.type === 'apiKey' &&
        scheme.in === 'header' &&
        /authorization/i.test(scheme.name ?? ''),
    );
    assert.ok(
      headerSchemes.some((scheme) => /api ?key/i.test(scheme.description ?? '')),
      'no API key authorization is declared',
    );
    assert.ok(
      headerSchemes.some((scheme) => /bearer|jwt/i.test(scheme.description ?? '')) ||
        schemes.some((scheme) => scheme.type === 'oauth2' || scheme.type === 'http'),
      'no JWT (login) authorization is declared',
    );
  },
);
