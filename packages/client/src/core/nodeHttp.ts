import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';

let agents: { http: HttpAgent; https: HttpsAgent } | undefined;
/** One keep-alive pool per process and protocol (idle sockets do not keep the process alive). */
function agentFor(https: boolean): HttpAgent {
  agents ??= { http: new HttpAgent({ keepAlive: true, maxSockets: 32 }), https: new HttpsAgent({ keepAlive: true, maxSockets: 32 }) };
  return https ? agents.https : agents.http;
}

/** Node's header record as a Headers (Set-Cookie and other repeated headers kept apart). */
export function toHeaders(raw: IncomingHttpHeaders | Record<string, string | string[] | undefined>): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.append(name, value);
  }
  return headers;
}

/**
 * One exchange over Node's own http/https module (the `http: 'node'` option): no redirects
 * followed, a streamed body piped with back-pressure, the answer read whole. The signal covers the
 * whole exchange, reading the answer included. It loads nothing beyond Node, which matters where
 * start-up counts (the Playwright reporter): undici and its WebAssembly parser take ~50 ms to load.
 */
export function nodeExchange(
  method: string,
  url: string,
  headers: Record<string, string>,
  body: string | AsyncIterable<Uint8Array> | undefined,
  signal: AbortSignal,
): Promise<{ status: number; headers: Headers; text: string }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const https = target.protocol === 'https:';
    const send = https ? httpsRequest : httpRequest;
    let done = false;
    const fail = (err: unknown) => {
      if (done) return;
      done = true;
      signal.removeEventListener('abort', onAbort);
      reject(err);
    };
    const out = { ...headers };
    if (typeof body === 'string' && !Object.keys(out).some((h) => h.toLowerCase() === 'content-length')) out['Content-Length'] = String(Buffer.byteLength(body));
    const req = send(target, { method, headers: out, agent: agentFor(https) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', fail);
      res.on('aborted', () => fail(new Error('the connection closed before the answer was complete')));
      res.on('end', () => {
        if (done) return;
        done = true;
        signal.removeEventListener('abort', onAbort);
        resolve({ status: res.statusCode ?? 0, headers: toHeaders(res.headers), text: Buffer.concat(chunks).toString('utf8') });
      });
    });
    const onAbort = () => {
      const reason = signal.reason instanceof Error ? signal.reason : new Error('aborted');
      req.destroy(reason);
      fail(reason);
    };
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    req.on('error', fail);
    if (body === undefined) req.end();
    else if (typeof body === 'string') req.end(body);
    else {
      const source = Readable.from(body, { objectMode: false });
      source.on('error', (e) => {
        req.destroy(e);
        fail(e);
      });
      source.pipe(req);
    }
  });
}
