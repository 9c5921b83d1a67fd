/**
 * The OpenAPI description of the admin REST API, generated from the same route table that drives the router, so
 * the interactive documentation lists exactly what the platform serves.
 */
import { faultActive } from '../../../faults';
import { accessOf } from './access';
import type { AdminRoute } from './route';

const AUTH_PATHS = new Set(['/api/auth/login', '/api/auth/token', '/api/auth/user']);

export function openApiDocument(routes: readonly AdminRoute[], serverUrl: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    if (faultActive('AUTH-DOC-05:only-auth-endpoints') && !AUTH_PATHS.has(route.path)) continue;
    if (faultActive('AUTH-DOC-05:login-missing') && route.path === '/api/auth/login') continue;
    const path = faultActive('AUTH-DOC-05:templated-literals')
      ? route.path
          .split('/')
          .map((segment, index) => (index < 2 ? segment : `{segment${index}}`))
          .join('/')
      : route.path.replace(/:([A-Za-z]+)/g, '{$1}');
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
      securitySchemes: {
        // Swagger UI sends an apiKey-type scheme value as is, so the user pastes "Bearer <JWT>" or "ApiKey <key>"
        ...(faultActive('AUTH-DOC-02:no-jwt-scheme')
          ? {}
          : {
              'X-Authorization (JWT)': {
                type: 'apiKey',
                in: 'header',
                name: 'X-Authorization',
                description: 'Bearer <JWT from POST /api/auth/login>',
              },
            }),
        ...(faultActive('AUTH-DOC-02:no-api-key-scheme')
          ? {}
          : {
              'X-Authorization (API key)': {
                type: 'apiKey',
                in: 'header',
                name: 'X-Authorization',
                description: 'ApiKey <API_KEY>',
              },
            }),
      },
    },
    security: [{ 'X-Authorization (JWT)': [] }, { 'X-Authorization (API key)': [] }],
    paths,
  };
}
