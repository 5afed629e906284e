import { z } from 'zod';
import { endpoints, errorBody, operationIds, type EndpointDef } from '@testreport/contract';
import { API_PREFIX } from './paths.js';

type JsonSchema = Record<string, unknown>;
const COMPONENTS = '#/components/schemas/';

/**
 * Collects the schemas zod extracts into `$defs` (those with a `.meta({ id })`, which every
 * recursive schema of the contract has) as `components/schemas`, and points their refs there: a
 * `#/$defs/…` ref inside an OpenAPI document would resolve against the document's root.
 */
class Components {
  readonly schemas: Record<string, JsonSchema> = {};

  toSchema(s: z.ZodType, io: 'input' | 'output'): JsonSchema {
    const json = z.toJSONSchema(s, { target: 'draft-2020-12', io, unrepresentable: 'any', reused: 'inline' }) as JsonSchema;
    const { $defs, $schema: _dialect, ...schema } = json as JsonSchema & { $defs?: Record<string, JsonSchema> };
    for (const [name, def] of Object.entries($defs ?? {})) {
      // An id-less cycle gets a generated name (`__schema0`) that differs from one schema to the next.
      if (!/^[A-Za-z][A-Za-z0-9]*$/.test(name)) throw new Error(`Schema ${name} needs .meta({ id }) in the contract to become an OpenAPI component`);
      const component = rewriteRefs(def) as JsonSchema;
      const known = this.schemas[name];
      if (known && JSON.stringify(known) !== JSON.stringify(component)) throw new Error(`Two different schemas are both named ${name}`);
      this.schemas[name] = component;
    }
    return rewriteRefs(schema) as JsonSchema;
  }
}

function rewriteRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewriteRefs);
  if (node === null || typeof node !== 'object') return node;
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(node)) {
    out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#/$defs/') ? COMPONENTS + v.slice('#/$defs/'.length) : rewriteRefs(v);
  }
  return out;
}

const openApiPath = (p: string) => p.replace(/:([A-Za-z]+)/g, '{$1}');

function parameters(def: EndpointDef, components: Components) {
  const out: unknown[] = [];
  for (const [where, schema] of [['path', def.params], ['query', def.query]] as const) {
    if (!schema) continue;
    const json = components.toSchema(schema, 'input') as { properties?: Record<string, unknown>; required?: string[] };
    for (const [name, s] of Object.entries(json.properties ?? {})) {
      out.push({ name, in: where, required: where === 'path' || (json.required ?? []).includes(name), schema: s });
    }
  }
  return out;
}

function requestBody(def: EndpointDef, components: Components) {
  if (def.body) return { required: true, content: { 'application/json': { schema: components.toSchema(def.body, 'input') } } };
  if (!def.multipart) return undefined;
  const s = components.toSchema(def.multipart, 'input') as { properties: Record<string, unknown>; required: string[] };
  const schema = { ...s, properties: { ...s.properties, file: { type: 'string', contentMediaType: 'application/octet-stream' } }, required: [...s.required, 'file'] };
  return { required: true, content: { 'multipart/form-data': { schema } } };
}

/**
 * What any endpoint may answer (docs/decisions.md §3): bad input, no or wrong credentials, role or scope,
 * unknown id, rate limit, and a server fault (e.g. the database gone), always in the envelope.
 */
const COMMON_ERRORS = [400, 401, 403, 404, 429, 500];

/**
 * Every status the endpoint can answer, so that a client generated from the document knows them
 * all: its own success status (and `alsoOk`), the common errors, 409 on every POST (an
 * Idempotency-Key reused for another body, or still in progress), 413 on every method that takes a
 * body (http/edge.ts), and the endpoint's own `errors`.
 */
export function statusesOf(def: EndpointDef): { ok: number[]; errors: number[] } {
  const errors = new Set([...COMMON_ERRORS, ...(def.errors ?? [])]);
  if (def.method === 'POST') errors.add(409);
  if (def.method !== 'GET') errors.add(413);
  // Outages (docs/api.md): any request may meet a database or store that is away; only writes need disk.
  errors.add(503);
  if (def.method !== 'GET') errors.add(507);
  return { ok: [def.status, ...(def.alsoOk ? [def.alsoOk] : [])], errors: [...errors].sort((a, b) => a - b) };
}

const OK_TEXT: Record<number, string> = { 200: 'OK', 201: 'Created' };

function responses(def: EndpointDef, components: Components, error: unknown) {
  const { ok, errors } = statusesOf(def);
  const out: Record<string, unknown> = {};
  const success = { content: { 'application/json': { schema: components.toSchema(def.response, 'output') } } };
  for (const s of ok) out[String(s)] = { description: s === def.alsoOk ? 'OK (found, not created)' : OK_TEXT[s], ...success };
  for (const s of errors) out[String(s)] = error;
  return out;
}

/** OpenAPI 3.1, generated from the same zod schemas that validate requests (docs/decisions.md §1). */
export function buildOpenApi(appUrl: string) {
  const components = new Components();
  const paths: Record<string, Record<string, unknown>> = {};
  const error = { description: 'Error', content: { 'application/json': { schema: components.toSchema(errorBody, 'output') } } };
  const retryAfter = { 'Retry-After': { description: 'Seconds to wait before sending the same request again', schema: { type: 'integer', minimum: 0 } } };
  const outage = (description: string) => ({ ...error, description, headers: retryAfter });
  for (const op of operationIds) {
    const def: EndpointDef = endpoints[op];
    const path = openApiPath((def.base === 'api' ? API_PREFIX : '') + def.path);
    const body = requestBody(def, components);
    (paths[path] ??= {})[def.method.toLowerCase()] = {
      operationId: op,
      summary: def.summary,
      tags: [op.split('.')[0]],
      security: def.auth === 'public' ? [] : def.auth === 'user' ? [{ session: [] }] : [{ apiKey: [] }, { session: [] }],
      parameters: parameters(def, components),
      ...(body ? { requestBody: body } : {}),
      responses: {
        ...responses(def, components, error),
        '503': outage('SERVICE_UNAVAILABLE: the database or the artifact store cannot be reached right now; nothing was written'),
        ...(def.method === 'GET' ? {} : { '507': outage("INSUFFICIENT_STORAGE: the server's disk is full; nothing was written") }),
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'testreport API', version: '1.0.0', description: 'Test-results reporting: runs, tests, suites, flakiness, artifacts, webhooks.', license: { name: 'MIT', identifier: 'MIT' } },
    servers: [{ url: appUrl || '/' }],
    components: {
      schemas: components.schemas,
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        session: { type: 'apiKey', in: 'cookie', name: 'testreport_session' },
      },
    },
    paths,
  };
}
