/**
 * The interactive documentation of the admin API, hosted by the platform at /swagger-ui.html as
 * docs/reference/interfaces.md says: Swagger UI from the swagger-ui-dist package (no hand-written
 * page beyond its start-up options) over /v3/api-docs.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type Router from 'find-my-way';
import type { TLSSocket } from 'node:tls';
import { sendEmpty, sendJson } from '../http/exchange';
import { withFaults } from '../../../faults/steps';
import { openApiDocument } from './openapi';
import type { StepFaults } from '../../../faults/steps';
import type { AdminRoute } from './route';

const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css',
  'swagger-ui-bundle.js': 'application/javascript',
  'swagger-ui-standalone-preset.js': 'application/javascript',
  'favicon-32x32.png': 'image/png',
};

const PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="UTF-8">
  <title>Administration REST API</title>
  <link rel="stylesheet" href="/swagger-ui/swagger-ui.css">
  <link rel="icon" type="image/png" href="/swagger-ui/favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/swagger-ui/swagger-ui-bundle.js"></script>
  <script src="/swagger-ui/swagger-ui-standalone-preset.js"></script>
  <script>
    window.ui = SwaggerUIBundle({
      url: '/v3/api-docs',
      dom_id: '#swagger-ui',
      presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
      layout: 'StandaloneLayout',
      persistAuthorization: true
    });
  </script>
</body>
</html>
`;

/** The documentation routes' steps (DOCS_FAULTS below wraps them). */
const DOCS_STEPS = {
  /** Answers GET /swagger-ui.html: the page. */
  page: (response: ServerResponse): void => {
    response.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'content-length': String(Buffer.byteLength(PAGE)),
    });
    response.end(PAGE);
  },
  /** Whether an asset of the page is served: each of ASSETS is. */
  served: (file: string): boolean => Object.hasOwn(ASSETS, file),
};
type DocsSteps = typeof DOCS_STEPS;

/**
 * The planted faults of the documentation (faults/catalogue/admin-auth.ts says what each breaks).
 */
const DOCS_FAULTS: StepFaults<DocsSteps> = {
  'AUTH-DOC-01:page-missing': { page: () => (response) => sendEmpty(response, 404) },
  'AUTH-DOC-01:redirect-to-missing-page': {
    page: () => (response) => {
      response.writeHead(302, { location: '/swagger-ui/index.html', 'content-length': 0 });
      response.end();
    },
  },
  'AUTH-DOC-01:script-missing': {
    served: (step) => (file) => file !== 'swagger-ui-bundle.js' && step(file),
  },
};

export function registerDocs(
  router: Router.Instance<Router.HTTPVersion.V1>,
  routes: readonly AdminRoute[],
): void {
  // the package's folder, found without loading the package: its entry point (getAbsoluteFSPath)
  // evaluates the whole Swagger UI bundle first, which cost every reference start (each parallel
  // worker's) a few hundred ms of CPU
  const assetDir = dirname(require.resolve('swagger-ui-dist/package.json'));
  const cache = new Map<string, Buffer>();
  router.on('GET', '/swagger-ui.html', (_request: IncomingMessage, response: ServerResponse) =>
    withFaults(DOCS_STEPS, DOCS_FAULTS).page(response),
  );
  router.on(
    'GET',
    '/swagger-ui/:file',
    (_request: IncomingMessage, response: ServerResponse, params) => {
      const file = params.file ?? '';
      if (!withFaults(DOCS_STEPS, DOCS_FAULTS).served(file)) return sendEmpty(response, 404);
      const type = ASSETS[file]!;
      let body = cache.get(file);
      if (!body) cache.set(file, (body = readFileSync(join(assetDir, file))));
      response.writeHead(200, {
        'content-type': type,
        'content-length': String(body.length),
        'cache-control': 'max-age=3600',
      });
      response.end(body);
    },
  );
  router.on('GET', '/v3/api-docs', (request: IncomingMessage, response: ServerResponse) => {
    const scheme = (request.socket as TLSSocket).encrypted ? 'https' : 'http';
    sendJson(
      response,
      200,
      openApiDocument(routes, `${scheme}://${request.headers.host ?? 'localhost'}`),
    );
  });
}
