/** The administration API's interactive documentation (Swagger UI and its OpenAPI description). */
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { type DataTable, Then } from './support/cucumber';
import { apiDescriptionSchema } from '../schemas/target-answers';
import type { IotcWorld } from './world';
import { request } from './support/admin-auth';
import { answerOf } from './support/answer-of';
import { Inconclusive } from './support/timing';
import { headRoundTrip, starvedHost } from './support/responsiveness';

/**
 * Redirects a browser follows on a GET before it gives up (Chrome and Firefox allow 20; a page
 * needs one or two).
 */
const MAX_REDIRECTS = 10;

/**
 * GET as a browser loads a page or a script: a redirect (301, 302, 303, 307, 308) is followed to
 * its Location, resolved against the URL that answered it. ThingsBoard answers /swagger-ui.html
 * with 302 to /swagger-ui/index.html (springdoc). Only locations under the administration URL are
 * followed (the harness speaks to the target only); the answer and the URL that gave it are
 * returned.
 */
async function browse(
  world: IotcWorld,
  url: URL,
  accept: string,
): Promise<{ answer: Awaited<ReturnType<typeof request>>; url: URL }> {
  const base = new URL(`${world.run.target.adminUrl}/`);
  for (let hops = 0; ; hops++) {
    assert.ok(
      url.origin === base.origin && url.pathname.startsWith(base.pathname),
      `${url.href} is not under the administration URL ${base.href}`,
    );
    const path = `/${url.pathname.slice(base.pathname.length)}${url.search}`;
    const answer = await request(world, 'GET', path, { accept });
    if (![301, 302, 303, 307, 308].includes(answer.status)) return { answer, url };
    assert.ok(answer.location, `${path} answered ${answer.status} without a Location`);
    assert.ok(hops < MAX_REDIRECTS, `more than ${MAX_REDIRECTS} redirects from ${path}`);
    url = new URL(answer.location, url);
  }
}

Then(
  'the interactive documentation page \\/swagger-ui.html is served with its scripts',
  async function (this: IotcWorld) {
    const { answer: page, url: pageUrl } = await browse(
      this,
      new URL(`${this.run.target.adminUrl}/swagger-ui.html`),
      'text/html',
    );
    assert.equal(
      page.status,
      200,
      `/swagger-ui.html led to ${pageUrl.pathname}, which answered ${page.status}`,
    );
    assert.match(page.text, /swagger-ui/i, 'the page is not Swagger UI');
    const scripts = [...page.text.matchAll(/<script[^>]+src="([^"]+)"/g)].map((match) => match[1]!);
    assert.ok(scripts.length > 0, 'the page loads no script');
    for (const script of scripts) {
      // a relative src is relative to the page's own URL (after the redirect), as the browser reads
      // it
      const { answer, url } = await browse(this, new URL(script, pageUrl), '*/*');
      assert.equal(answer.status, 200, `${script} (${url.pathname}) answered ${answer.status}`);
      assert.ok(answer.text.length > 0, `${script} (${url.pathname}) is empty`);
    }
  },
);

/**
 * The API description is built on its first request and kept: ThingsBoard 4.3.1.3's springdoc took
 * 62.7 s for it ("Init duration for springdoc-openapi") on a busy 2-core machine, and the
 * specification bounds no latency of the documentation, so its request may take a few request
 * timeouts before a missing answer says anything.
 */
function descriptionTimeoutMs(world: IotcWorld): number {
  return Math.min(Math.max(4 * world.run.target.timeouts.requestMs, 120_000), 200_000);
}

/** A step that reads the API description may take its whole timeout, and a little more. */
const DESCRIPTION_STEP = { timeout: 4 * 60_000 };

/** How often the target's responsiveness is sampled while its API description is awaited. */
const RESPONSIVENESS_EVERY_MS = 5_000;

async function apiDescription(world: IotcWorld) {
  const samplesMs: number[] = [];
  const stop = new AbortController();
  const sampler = (async () => {
    for (;;) {
      await delay(RESPONSIVENESS_EVERY_MS, undefined, { signal: stop.signal });
      samplesMs.push(await headRoundTrip(world));
    }
  })().catch(() => undefined);
  const timeoutMs = descriptionTimeoutMs(world);
  let answer: Awaited<ReturnType<typeof request>>;
  try {
    answer = await request(world, 'GET', '/v3/api-docs', {}, undefined, timeoutMs);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const starved =
      code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT'
        ? starvedHost(world, samplesMs)
        : undefined;
    if (starved)
      throw new Inconclusive(
        `GET /v3/api-docs gave no answer within ${timeoutMs} ms, and ${starved}, not a verdict`,
      );
    throw error;
  } finally {
    stop.abort();
    await sampler;
  }
  assert.equal(answer.status, 200, `/v3/api-docs answered ${answer.status}`);
  return answerOf(apiDescriptionSchema, answer, 'GET /v3/api-docs');
}

/**
 * Whether a documented path template is the expected one. In the expected path `{}` stands for any
 * path parameter, `{DEVICE}` for the literal DEVICE or a parameter in its place (ThingsBoard
 * documents DEVICE as {entityType}), and any other segment must be documented literally: a
 * parameter does not stand for a literal the table did not mark.
 */
function samePath(documented: string, expected: string): boolean {
  const have = documented.split('/');
  const want = expected.split('/');
  const parameter = (segment: string | undefined) => /^\{[^}]*\}$/.test(segment ?? '');
  return (
    have.length === want.length &&
    want.every((segment, index) => {
      if (segment === '{}') return parameter(have[index]);
      if (parameter(segment)) return have[index] === segment.slice(1, -1) || parameter(have[index]);
      return segment === have[index];
    })
  );
}

Then(
  'its API description lists these endpoints:',
  DESCRIPTION_STEP,
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
  DESCRIPTION_STEP,
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
