/**
 * GET /api/v1/openapi.json must work with the tools users point at it (issue 16.5): it validates
 * with swagger-parser, lints without errors with Redocly, and openapi-typescript generates a client
 * type file that type-checks and types the recursive schemas.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/harness.js';

let t: TestServer;
let doc: Record<string, any>;
beforeAll(async () => {
  t = await startTestServer();
  const res = await fetch(`${t.baseUrl}/openapi.json`);
  expect(res.status).toBe(200);
  doc = (await res.json()) as Record<string, any>;
});
afterAll(async () => {
  await t?.close();
});

/** Every `$ref` string in the document. */
function refsOf(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((n) => refsOf(n, out));
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else refsOf(v, out);
    }
  }
  return out;
}

describe('GET /api/v1/openapi.json', () => {
  it('puts recursive and shared schemas under components/schemas, and every $ref resolves there', () => {
    const refs = refsOf(doc);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) {
      expect(ref).toMatch(/^#\/components\/schemas\/[A-Za-z][A-Za-z0-9]*$/);
      expect(doc.components.schemas[ref.split('/').pop()!]).toBeDefined();
    }
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['StepInput', 'Step', 'SuiteNode', 'Error']));
    expect(JSON.stringify(doc)).not.toContain('$defs');
  });

  it('validates with swagger-parser', async () => {
    const api = await SwaggerParser.validate(structuredClone(doc) as never);
    expect(api.info.title).toBe('testreport API');
  });

  it('lints clean with Redocly (recommended rules): no errors, no warnings', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    // A deployed server names its public URL; the test server's is localhost, which the rule flags.
    const deployed = { ...doc, servers: [{ url: 'https://reports.acme.dev' }] };
    const problems = await lintFromString({ source: JSON.stringify(deployed), absoluteRef: 'openapi.json', config });
    expect(problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`)).toEqual([]);
  });

  it('generates client types with openapi-typescript that type-check, recursive schemas included', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'openapi-ts-'));
    try {
      writeFileSync(join(dir, 'api.ts'), astToString(await openapiTS(doc as never)));
      // What a user of the generated types writes; the @ts-expect-error lines prove the types are not `any`.
      writeFileSync(
        join(dir, 'use.ts'),
        `import type { components, paths } from './api';
type RunCreate = paths['/api/v1/runs']['post']['requestBody']['content']['application/json'];
export const run: RunCreate = { projectId: 'p', status: 'running', branch: 'main' };
// @ts-expect-error status is an enum
export const badRun: RunCreate = { projectId: 'p', status: 'nope' };
type StepInput = components['schemas']['StepInput'];
// openapi-typescript makes fields with a default required unless run with --default-non-nullable false.
export const step: StepInput = { title: 'a', category: 'action', status: 'passed', duration: 1, steps: [{ title: 'b', category: 'assertion', status: 'failed', duration: 0, steps: [] }] };
// @ts-expect-error nested steps are typed too
export const badStep: StepInput = { title: 'a', category: 'action', status: 'passed', duration: 1, steps: [{ title: 1, category: 'action', status: 'passed', duration: 1 }] };
type Tree = paths['/api/v1/test-suites']['get']['responses'][200]['content']['application/json'];
export const deepest = (tree: Tree): string => tree.data[0].children[0].children[0].id;
type Failure = paths['/api/v1/runs/{id}']['get']['responses'][404]['content']['application/json'];
export const code = (e: Failure): string => e.error.code;
`,
      );
      const program = ts.createProgram([join(dir, 'api.ts'), join(dir, 'use.ts')], {
        strict: true, noEmit: true, skipLibCheck: true, lib: ['lib.es2022.d.ts'], target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, types: [],
      });
      const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
      expect(diagnostics).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
