/**
 * The OpenAPI description of the admin REST API, generated from the same route table that drives
 * the router, so the interactive documentation lists exactly what the platform serves.
 */
import { type StepFaults, withFaults } from '../../../faults/steps';
import { accessOf } from './access';
import type { AdminRoute } from './route';

/** The description's steps (OPENAPI_FAULTS below wraps them). */
const OPENAPI_STEPS = {
  /** Whether a route's path is described: every one is. */
  documented: (_path: string): boolean => true,
  /** A route's path in OpenAPI's form: each :parameter as {parameter}. */
  openApiPath: (path: string): string => path.replace(/:([A-Za-z]+)/g, '{$1}'),
  /** The security schemes: a JWT and an API key, both in X-Authorization. */
  securitySchemes: (): Record<string, object> => ({
    // Swagger UI sends an apiKey-type scheme value as is, so the user pastes "Bearer <JWT>" or
    // "ApiKey <key>"
    'X-Authorization (JWT)': {
      type: 'apiKey',
      in: 'header',
      name: 'X-Authorization',
      description: 'Bearer <JWT from POST /api/auth/login>',
    },
    'X-Authorization (API key)': {
      type: 'apiKey',
      in: 'header',
      name: 'X-Authorization',
      description: 'ApiKey <API_KEY>',
    },
  }),
};
type OpenApiSteps = typeof OPENAPI_STEPS;

/** The planted faults of the description (faults/catalogue/admin-auth.ts says what each breaks). */
/** Path segments after /api/ written as templates, whatever they are. */
const allTemplated = (path: string) =>
  path
    .split('/')
    .map((segment, index) => (index < 2 ? segment : `{segment${index}}`))
    .join('/');

const OPENAPI_FAULTS: StepFaults<OpenApiSteps> = {
  'AUTH-DOC-05:only-auth-endpoints': {
    documented: (step) => (path) =>
      ['/api/auth/login', '/api/auth/token', '/api/auth/user'].includes(path) && step(path),
  },
  'AUTH-DOC-05:login-missing': {
    documented: (step) => (path) => path !== '/api/auth/login' && step(path),
  },
  'AUTH-DOC-05:templated-literals': { openApiPath: () => allTemplated },
  'AUTH-DOC-02:no-jwt-scheme': {
    securitySchemes: (step) => () => {
      const { 'X-Authorization (JWT)': _dropped, ...schemes } = step();
      return schemes;
    },
  },
  'AUTH-DOC-02:no-api-key-scheme': {
    securitySchemes: (step) => () => {
      const { 'X-Authorization (API key)': _dropped, ...schemes } = step();
      return schemes;
    },
  },
};

export function openApiDocument(
  routes: readonly AdminRoute[],
  serverUrl: string,
  steps: OpenApiSteps = withFaults(OPENAPI_STEPS, OPENAPI_FAULTS),
) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    if (!steps.documented(route.path)) continue;
    const path = steps.openApiPath(route.path);
    const parameters = [...route.path.matchAll(/:([A-Za-z]+)/g)].map(([, name]) => ({
      name,
      in: 'path',
      required: true,
      schema: { type: 'string' },
    }));
    const operation: Record<string, unknown> = {
      summary: route.summary,
      operationId: `${route.method.toLowerCase()}${path.replace(/[^A-Za-z0-9]+(.)?/g, (_match, next: string | undefined) => (next ?? '').toUpperCase())}`,
      tags: [path.split('/')[2] ?? 'api'],
      parameters,
      responses: {
        '200': { description: 'OK' },
        '400': { description: 'Bad request' },
        '401': { description: 'Unauthorized' },
      },
    };
    if (route.method === 'POST' || route.method === 'PUT') {
      operation.requestBody = {
        required: false,
        content: { 'application/json': { schema: { type: 'object' } } },
      };
    }
    const access = accessOf(route);
    if (access === 'public') operation.security = [];
    else operation.description = `Authority: ${access.join(' or ')}`;
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operation };
  }
  return {
    openapi: '3.0.3',
    info: {
      title: 'iotc reference platform: administration REST API',
      version: '1',
      description:
        'Authorize with a JWT from POST /api/auth/login (X-Authorization: Bearer <JWT>) or paste an API key ' +
        '(X-Authorization: ApiKey <API_KEY>). When both are authorized, the JWT is used.',
    },
    servers: [{ url: serverUrl }],
    components: {
      securitySchemes: steps.securitySchemes(),
    },
    security: [{ 'X-Authorization (JWT)': [] }, { 'X-Authorization (API key)': [] }],
    paths,
  };
}
