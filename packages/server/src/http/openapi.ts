import { z } from 'zod';
import { endpoints, errorBody, operationIds, type EndpointDef } from '@testreport/contract';
import { API_PREFIX } from './router.js';

const toSchema = (s: z.ZodType, io: 'input' | 'output') =>
  z.toJSONSchema(s, { target: 'draft-2020-12', io, unrepresentable: 'any', reused: 'inline' }) as Record<string, unknown>;

const openApiPath = (p: string) => p.replace(/:([A-Za-z]+)/g, '{$1}');

function parameters(def: EndpointDef) {
  const out: unknown[] = [];
  for (const [where, schema] of [['path', def.params], ['query', def.query]] as const) {
    if (!schema) continue;
    const json = toSchema(schema, 'input') as { properties?: Record<string, unknown>; required?: string[] };
    for (const [name, s] of Object.entries(json.properties ?? {})) {
      out.push({ name, in: where, required: where === 'path' || (json.required ?? []).includes(name), schema: s });
    }
  }
  return out;
}

/** OpenAPI 3.1, generated from the same zod schemas that validate requests (decisions §1). */
export function buildOpenApi(appUrl: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  const error = { description: 'Error', content: { 'application/json': { schema: toSchema(errorBody, 'output') } } };
  for (const op of operationIds) {
    const def: EndpointDef = endpoints[op];
    const path = openApiPath((def.base === 'api' ? API_PREFIX : '') + def.path);
    const requestBody = def.body
      ? { required: true, content: { 'application/json': { schema: toSchema(def.body, 'input') } } }
      : def.multipart
        ? {
            required: true,
            content: {
              'multipart/form-data': {
                schema: (() => {
                  const s = toSchema(def.multipart, 'input') as { properties: Record<string, unknown>; required: string[] };
                  return { ...s, properties: { ...s.properties, file: { type: 'string', contentMediaType: 'application/octet-stream' } }, required: [...s.required, 'file'] };
                })(),
              },
            },
          }
        : undefined;
    (paths[path] ??= {})[def.method.toLowerCase()] = {
      operationId: op,
      summary: def.summary,
      tags: [op.split('.')[0]],
      security: def.auth === 'public' ? [] : def.auth === 'user' ? [{ session: [] }] : [{ apiKey: [] }, { session: [] }],
      parameters: parameters(def),
      ...(requestBody ? { requestBody } : {}),
      responses: {
        [String(def.status)]: { description: 'OK', content: { 'application/json': { schema: toSchema(def.response, 'output') } } },
        '400': error, '401': error, '403': error, '404': error, '429': error,
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'testreport API', version: '1.0.0', description: 'Test-results reporting: runs, tests, suites, flakiness, artifacts, webhooks.' },
    servers: [{ url: appUrl || '/' }],
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        session: { type: 'apiKey', in: 'cookie', name: 'testreport_session' },
      },
    },
    paths,
  };
}
