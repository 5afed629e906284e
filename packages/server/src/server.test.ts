/**
 * Stalled clients must not hold connections forever (issue 15.6): a request whose headers or body
 * stop arriving is cut off after the configured time-out, and connections beyond the cap are refused.
 * The time-outs are shortened here; the defaults are in docs/server.md.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './testing/harness.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ headersTimeoutMs: 500, bodyTimeoutMs: 500 });
});
afterAll(async () => {
  await t?.close();
});

/** Opens a raw connection and collects what the server sends until it closes the connection. */
function rawClient(port = t.server.port): { socket: Socket; ready: Promise<void>; closed: Promise<string> } {
  const socket = connect(port, '127.0.0.1');
  let received = '';
  socket.on('data', (d) => (received += d.toString('latin1')));
  socket.on('error', () => {});
  const ready = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  const closed = new Promise<string>((resolve) => socket.once('close', () => resolve(received)));
  return { socket, ready, closed };
}

describe('stalled requests', () => {
  it('cuts off a client that sends the headers and half a body, then stalls', async () => {
    const c = rawClient();
    await c.ready;
    const body = JSON.stringify({ projectId: t.projectId, status: 'running' });
    c.socket.write(
      `POST /api/v1/runs HTTP/1.1\r\nHost: localhost\r\nX-API-Key: ${t.apiKey}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
    );
    // The test's own time-out (vitest's 5 s) is the bound: the connection must close well before it.
    await c.closed;
    expect(c.socket.destroyed).toBe(true);
    // Nothing was created from the half body.
    const runs = await t.api('GET', `/runs?projectId=${t.projectId}`, { auth: t.apiKey });
    expect(runs.body.total).toBe(0);
  });

  it('cuts off a client that stops in the middle of its headers with 408', async () => {
    const c = rawClient();
    await c.ready;
    c.socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Half');
    expect(await c.closed).toMatch(/^HTTP\/1\.1 408/);
  });

  it('still serves a request that arrives in pieces without stalling', async () => {
    const c = rawClient();
    await c.ready;
    const body = JSON.stringify({ projectId: t.projectId, status: 'running' });
    c.socket.write(`POST /api/v1/runs HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nX-API-Key: ${t.apiKey}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
    for (const piece of [body.slice(0, 10), body.slice(10, 20), body.slice(20)]) {
      await new Promise((r) => setTimeout(r, 100));
      c.socket.write(piece);
    }
    expect(await c.closed).toMatch(/^HTTP\/1\.1 201/);
  });
});

describe('connection cap', () => {
  it('refuses connections beyond maxConnections and serves again once they are gone', async () => {
    // Its own server: the SDK's keep-alive connections to the shared one would count against the cap.
    const capped = await startTestServer({ maxConnections: 2 });
    try {
      const held = [rawClient(capped.server.port), rawClient(capped.server.port)];
      await Promise.all(held.map((c) => c.ready));
      // Both answered: the server has accepted them before the third arrives.
      await Promise.all(held.map((c) => new Promise<void>((resolve) => {
        c.socket.once('data', () => resolve());
        c.socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
      })));
      const extra = rawClient(capped.server.port);
      expect(await extra.closed).toBe('');
      for (const c of held) c.socket.destroy();
      await Promise.all(held.map((c) => c.closed));
      // The server counts a connection down when it sees the close, a moment after the client's.
      let res: Response | undefined;
      for (let attempt = 0; attempt < 50 && !res; attempt++) {
        res = await fetch(`${capped.url}/healthz`, { headers: { Connection: 'close' } }).catch(() => new Promise<undefined>((r) => setTimeout(() => r(undefined), 100)));
      }
      expect(res?.status).toBe(200);
    } finally {
      await capped.close();
    }
  });
});
