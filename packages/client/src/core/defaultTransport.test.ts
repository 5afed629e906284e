import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionError, TestReportClient } from '../index.js';
import { validKey } from '../testing/mockApi.js';

// The default transports (undici request on the shared Agent, and Node's http module with
// `http: 'node'`) against real sockets: what msw, which only sees an injected fetch, cannot show.
const servers: Array<ReturnType<typeof createServer>> = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

describe.each(['undici', 'node'] as const)('http: %s', (http) => {
  async function serve(handler: (req: IncomingMessage, res: ServerResponse, n: number) => void) {
    const seen: IncomingMessage[] = [];
    const server = createServer((req, res) => {
      seen.push(req);
      handler(req, res, seen.length);
    }).listen(0, '127.0.0.1');
    servers.push(server);
    await new Promise((r) => server.once('listening', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const client = (opts = {}) => new TestReportClient({ url, apiKey: validKey(), retryBaseMs: 5, http, ...opts });
    return { seen, client };
  }

  it('retries a connection reset mid-POST with the same Idempotency-Key', async () => {
    const { seen, client } = await serve((req, res, n) => {
      if (n === 1) return void req.once('data', () => req.socket.destroy());
      req.resume();
      req.on('end', () => res.writeHead(201, { 'Content-Type': 'application/json' }).end('{"id":"r-1"}'));
    });
    const run = await client().runs.create({ projectId: 'p', status: 'running' });
    expect(run).toEqual({ id: 'r-1' });
    expect(seen).toHaveLength(2);
    expect(seen[1]!.headers['idempotency-key']).toBe(seen[0]!.headers['idempotency-key']);
  });

  it('times out a server that never answers, retries, then throws ConnectionError (timedOut)', async () => {
    const { seen, client } = await serve(() => undefined);
    const err = await client({ timeoutMs: 100, maxRetries: 1 }).me().catch((e) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err.timedOut).toBe(true);
    expect(seen).toHaveLength(2);
  });

  it('turns a refused connection into ConnectionError naming the cause', async () => {
    const { client } = await serve(() => undefined);
    servers[0]!.close();
    await new Promise((r) => setTimeout(r, 20));
    const err = await client({ maxRetries: 0 }).me().catch((e) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err.message).toContain('ECONNREFUSED');
  });

  it('keeps Set-Cookie headers apart and sends the User-Agent', async () => {
    const { seen, client } = await serve((_req, res) => {
      res.setHeader('Set-Cookie', ['other=1; Path=/', 'testreport_session=abc; Path=/; HttpOnly']);
      res.setHeader('Content-Type', 'application/json');
      res.end('{"user":{"id":"u"},"expiresAt":"x"}');
    });
    const login = await client().auth.login({ email: 'a@b.test', password: 'password1' });
    expect(login.sessionCookie).toBe('testreport_session=abc');
    expect(seen[0]!.headers['user-agent']).toMatch(/^testreport-client\//);
  });

  it('streams an upload body (multipart) and reads the answer', async () => {
    let received = Buffer.alloc(0);
    const { seen, client } = await serve((req, res) => {
      req.on('data', (c: Buffer) => (received = Buffer.concat([received, c])));
      req.on('end', () => res.writeHead(201, { 'Content-Type': 'application/json' }).end('{"id":"a-1"}'));
    });
    const bytes = Buffer.from('\x89PNG\r\n\x1a\n' + 'x'.repeat(100_000));
    const art = await client().artifacts.upload({ file: new Uint8Array(bytes), fileName: 'shot.png', type: 'screenshot', runId: 'r', projectId: 'p' });
    expect(art).toEqual({ id: 'a-1' });
    expect(seen[0]!.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(received.includes(bytes)).toBe(true);
  });
});
