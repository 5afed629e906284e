/**
 * A client that keeps its connection open (undici's Agent, like the SDK) must be able to send its
 * next request after one whose body the server refused unread: the answer says `Connection: close`
 * so the client opens a new connection instead of writing into one the server is about to drop.
 */
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/harness.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

const json = { 'content-type': 'application/json' };

/** Two requests on one keep-alive connection: a refused one, then an ordinary one right after. */
async function refusedThenNext(path: string, body: string, headers: Record<string, string> = {}) {
  const agent = new Agent({ connections: 1, pipelining: 1, keepAliveTimeout: 30_000 });
  try {
    const first = await request(`${t.url}${path}`, { method: 'POST', headers: { ...json, ...headers }, body, dispatcher: agent });
    await first.body.text();
    // Well past @hono/node-server's 500 ms drain: the moment a reused socket used to be destroyed.
    await new Promise((r) => setTimeout(r, 700));
    const next = await request(`${t.url}/api/v1/me`, { headers: { 'x-api-key': t.apiKey }, dispatcher: agent });
    await next.body.text();
    return { first, next };
  } finally {
    await agent.destroy();
  }
}

describe('keep-alive after a refused body', () => {
  it('closes the connection after a 413 on /auth/*, and the next request on the agent succeeds', async () => {
    const { first, next } = await refusedThenNext('/auth/login', JSON.stringify({ email: 'a@b.c', password: 'x'.repeat(1024 * 1024) }));
    expect(first.statusCode).toBe(413);
    expect(first.headers.connection).toBe('close');
    expect(next.statusCode).toBe(200);
  });

  it('closes the connection after a 401 answered before the body was read', async () => {
    const { first, next } = await refusedThenNext('/api/v1/runs', JSON.stringify({ projectId: t.projectId, status: 'running', runTitle: 'x'.repeat(2 * 1024 * 1024) }));
    expect(first.statusCode).toBe(401);
    expect(first.headers.connection).toBe('close');
    expect(next.statusCode).toBe(200);
  });

  it('keeps the connection open after a request whose body was read', async () => {
    const { first, next } = await refusedThenNext('/api/v1/runs', JSON.stringify({ projectId: t.projectId, status: 'running' }), { 'x-api-key': t.apiKey });
    expect(first.statusCode).toBe(201);
    expect(first.headers.connection).toBe('keep-alive');
    expect(next.statusCode).toBe(200);
  });
});
