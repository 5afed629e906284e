import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { buildOpenApi } from '../http/openapi.js';
import { API_PREFIX } from '../http/paths.js';

type Json = Record<string, any>;
type Fetch = (req: Request, env?: unknown) => Response | Promise<Response>;

interface Operation {
  method: string;
  pattern: RegExp;
  /** Path templates without parameters win over templated ones (`/tests/batch` before `/tests/{id}`). */
  literal: boolean;
  name: string;
  responses: Record<string, ValidateFunction | null>;
}

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

const MAX_DEPTH = 200;

/** `node` with every array below `depth` levels emptied: what stays is checked as usual. */
function prune(node: unknown, depth: number): unknown {
  if (Array.isArray(node)) return depth <= 0 ? [] : node.map((n) => prune(n, depth - 1));
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, prune(v, depth - 1)]));
}

/** Refs of the document point into components; each compiled schema carries them as its own $defs. */
function localRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(localRefs);
  if (node === null || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) out[k] = k === '$ref' && typeof v === 'string' ? v.replace('#/components/schemas/', '#/$defs/') : localRefs(v);
  return out;
}

/**
 * Checks answers against openapi.json as a client generated from it would see them: the status
 * must be one the operation lists, and the body must validate against that status's schema under
 * strict Ajv (unknown keywords are errors; `additionalProperties: false` holds). Everything comes
 * from the document, so an endpoint added to the contract is covered without touching this file.
 */
export function createResponseCheck(doc: Json = buildOpenApi('')) {
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
  ajv.addFormat('date-time', (v: string) => DATE_TIME.test(v) && !Number.isNaN(Date.parse(v)));
  ajv.addFormat('email', /^[^\s@]+@[^\s@]+$/);
  ajv.addFormat('uri', (v: string) => URL.canParse(v));
  const $defs = localRefs(doc.components?.schemas ?? {});
  const compile = (schema: unknown) => ajv.compile({ ...(localRefs(schema) as Json), $defs });

  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths as Json)) {
    for (const [method, op] of Object.entries(item as Json)) {
      const responses: Operation['responses'] = {};
      for (const [status, r] of Object.entries((op as Json).responses as Json)) {
        const schema = (r as Json).content?.['application/json']?.schema;
        responses[status] = schema ? compile(schema) : null;
      }
      const pattern = new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`);
      operations.push({ method: method.toUpperCase(), pattern, literal: !path.includes('{'), name: `${method.toUpperCase()} ${path}`, responses });
    }
  }
  operations.sort((a, b) => Number(b.literal) - Number(a.literal));
  const errorSchema = compile({ $ref: '#/components/schemas/Error' });

  /** Ajv recurses with the data: a suite tree thousands deep (oddInput.test.ts) is checked to a depth it can reach. */
  const valid = (v: ValidateFunction, body: unknown) => {
    try {
      return v(body);
    } catch (err) {
      if (!(err instanceof RangeError)) throw err;
      return v(prune(body, MAX_DEPTH));
    }
  };

  const describe = (v: ValidateFunction) =>
    (v.errors ?? []).map((e) => `body${e.instancePath} ${e.message}${e.params.additionalProperty ? ` (${e.params.additionalProperty})` : ''}`).join('; ');

  /** Null when the answer is one the document allows; otherwise what is wrong with it. */
  async function check(method: string, pathname: string, res: Pick<Response, 'status' | 'headers' | 'text'>): Promise<string | null> {
    if (method === 'HEAD' || method === 'OPTIONS') return null;
    const op = operations.find((o) => o.method === method && o.pattern.test(pathname));
    // Unknown paths under {base_url} still answer in the error envelope; other paths are pages, health or storage.
    if (!op && !(pathname.startsWith(`${API_PREFIX}/`) && pathname !== `${API_PREFIX}/openapi.json`)) return null;
    const where = `${method} ${pathname} → ${res.status}`;
    let validate: ValidateFunction | null | undefined;
    if (op) {
      if (!(String(res.status) in op.responses)) return `${where}: status not listed for ${op.name} (lists ${Object.keys(op.responses).join(', ')})`;
      validate = op.responses[String(res.status)];
    } else {
      if (res.status < 400) return `${where}: no operation of openapi.json matches, yet the answer is a success`;
      validate = errorSchema;
    }
    if (!validate) return null;
    const type = res.headers.get('content-type') ?? '';
    if (!type.startsWith('application/json')) return `${where}: Content-Type ${type || '(none)'}, openapi.json says application/json`;
    const text = await res.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return `${where}: body is not JSON: ${text.slice(0, 200)}`;
    }
    return valid(validate, body) ? null : `${where}: ${describe(validate)}; body ${text.slice(0, 500)}`;
  }

  /** Wraps a server's fetch so that every answer is checked; `onProblem` hears about each one that fails. */
  const wrap =
    (inner: Fetch, onProblem: (problem: string) => void): Fetch =>
    async (req, env) => {
      const res = await inner(req, env);
      const { pathname } = new URL(req.url);
      // Cloned only when read: a download's stream is never teed.
      const lazy = { status: res.status, headers: res.headers, text: () => res.clone().text() };
      const problem = await check(req.method, pathname, lazy).catch((err: unknown) => `${req.method} ${pathname}: ${String(err)}`);
      if (problem) onProblem(problem);
      return res;
    };

  return { check, wrap };
}
