/** The harness's check of every answer against openapi.json refuses what a generated client would not expect. */
import { describe, expect, it } from 'vitest';
import { createResponseCheck } from './responseCheck.js';

const { check } = createResponseCheck();
const answer = (status: number, body: unknown, type = 'application/json; charset=utf-8') => new Response(JSON.stringify(body), { status, headers: { 'content-type': type } });
const run = {
  id: 'r1', projectId: 'p1', status: 'running', branch: null, commitSha: null, commitMessage: null, commitAuthor: null, ciProvider: null,
  ciBuildId: null, ciBuildUrl: null, frameworkVersion: null, workers: null, shardCurrent: null, shardTotal: null, browser: null, os: null,
  viewport: null, hostname: null, runTitle: null, tags: [], grepPatterns: [], totalTests: 0, passedTests: 0, failedTests: 0, skippedTests: 0,
  flakyTests: 0, passRate: 0, duration: null, group: null, finishedShards: null, finishReason: null, finishCount: 0,
  createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z',
};
const notFound = { error: { code: 'NOT_FOUND', message: 'Run not found' } };

describe('response check', () => {
  it('accepts an answer the document allows: listed status, body valid', async () => {
    expect(await check('GET', '/api/v1/runs/r1', answer(200, run))).toBeNull();
    expect(await check('POST', '/api/v1/runs', answer(200, { ...run, attempt: 1 }))).toBeNull();
    expect(await check('GET', '/api/v1/runs/r1', answer(404, notFound))).toBeNull();
  });

  it('refuses a status the operation does not list', async () => {
    expect(await check('GET', '/api/v1/runs/r1', answer(409, { error: { code: 'CONFLICT', message: 'x' } }))).toMatch(/status not listed for GET \/api\/v1\/runs\/\{id\}/);
  });

  it('refuses a property the schema does not declare, a missing one, and a wrong type', async () => {
    expect(await check('GET', '/api/v1/runs/r1', answer(200, { ...run, secret: 'x' }))).toMatch(/must NOT have additional properties \(secret\)/);
    const { passRate: _, ...noRate } = run;
    expect(await check('GET', '/api/v1/runs/r1', answer(200, noRate))).toMatch(/must have required property 'passRate'/);
    expect(await check('GET', '/api/v1/runs/r1', answer(200, { ...run, createdAt: 'yesterday' }))).toMatch(/createdAt must match format "date-time"/);
  });

  it('refuses an error outside the envelope, and a body that is not JSON', async () => {
    expect(await check('GET', '/api/v1/runs/r1', answer(404, { message: 'nope' }))).toMatch(/required property 'error'/);
    expect(await check('GET', '/api/v1/runs/r1', new Response('<h1>404</h1>', { status: 404, headers: { 'content-type': 'text/html' } }))).toMatch(/Content-Type text\/html/);
  });

  it('checks unknown API paths for the error envelope and leaves pages alone', async () => {
    expect(await check('GET', '/api/v1/nowhere', answer(404, notFound))).toBeNull();
    expect(await check('GET', '/api/v1/nowhere', answer(200, {}))).toMatch(/no operation of openapi.json matches/);
    expect(await check('GET', '/projects/p1/runs', new Response('<html>', { status: 200, headers: { 'content-type': 'text/html' } }))).toBeNull();
  });
});
