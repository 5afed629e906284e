/**
 * JSON bodies under the real server are read from Node's request stream (nodeBody.ts), and a
 * declared Content-Length is judged from the header (bodyLimits.ts). What a client sees must be
 * what it saw when the body went through a WHATWG Request: the same text (UTF-8, a leading BOM
 * dropped, characters split across packets intact), chunked bodies too, and 413 above the limit.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { createRun, testBody } from '../testing/results.js';
import { MAX_JSON_BODY } from './edge.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

/** A POST whose body goes out in these pieces, a pause between them; chunked unless a length is given. */
function post(path: string, pieces: Buffer[], opts: { contentLength?: number; key?: string } = {}): Promise<{ status: number; body: string; replayed?: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { 'content-type': 'application/json', 'x-api-key': t.apiKey, 'idempotency-key': opts.key ?? `body-${Math.random()}` };
    if (opts.contentLength !== undefined) headers['content-length'] = opts.contentLength;
    const req = httpRequest(`${t.url}${path}`, { method: 'POST', headers }, (res: IncomingMessage) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, replayed: res.headers['idempotent-replayed'] as string | undefined }));
    });
    req.on('error', reject);
    void (async () => {
      for (const [i, piece] of pieces.entries()) {
        if (i > 0) await new Promise((r) => setTimeout(r, 30));
        req.write(piece);
      }
      if (opts.contentLength === undefined || opts.contentLength === pieces.reduce((n, p) => n + p.length, 0)) req.end();
    })();
  });
}

/** A run body with a leading BOM, cut in the middle of a multi-byte character. */
function runBodyInPieces(title: string): Buffer[] {
  const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify({ projectId: t.projectId, status: 'running', runTitle: title }))]);
  const cut = bytes.indexOf(Buffer.from('€')) + 1;
  return [bytes.subarray(0, cut), bytes.subarray(cut)];
}

describe('JSON request bodies under the real server', () => {
  it('reads a body with a declared length in pieces: UTF-8 intact, leading BOM dropped', async () => {
    const pieces = runBodyInPieces('price 5 € — 日本語');
    const res = await post('/api/v1/runs', pieces, { contentLength: pieces[0].length + pieces[1].length });
    expect(res.status).toBe(201);
    expect(JSON.parse(res.body).runTitle).toBe('price 5 € — 日本語');
  });

  it('reads a chunked body the same way', async () => {
    const res = await post('/api/v1/runs', runBodyInPieces('chunked € body'));
    expect(res.status).toBe(201);
    expect(JSON.parse(res.body).runTitle).toBe('chunked € body');
  });

  it('answers 413 to a declared length above the limit without waiting for the body', async () => {
    const res = await post('/api/v1/runs', [Buffer.from('{"projectId":')], { contentLength: MAX_JSON_BODY + 1 });
    expect(res.status).toBe(413);
  });

  it('answers a DELETE without a body (no Content-Length) instead of waiting for one', async () => {
    const res = await t.api('DELETE', '/tests/00000000-0000-7000-8000-000000000000/snapshots/accept', { auth: t.apiKey });
    expect(res.status).toBe(404);
  });

  it('keeps serving after a client went away in the middle of a body', async () => {
    await new Promise<void>((resolve) => {
      const req = httpRequest(`${t.url}/api/v1/runs`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': t.apiKey, 'content-length': 1000 } });
      req.on('error', () => resolve());
      req.write('{"projectId":"');
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 50);
    });
    const res = await post('/api/v1/runs', [Buffer.from(JSON.stringify({ projectId: t.projectId, status: 'running' }))]);
    expect(res.status).toBe(201);
  });
});

/**
 * A batch past 64 KiB is parsed element by element from its bytes, and its answer (past 256
 * results) is written as bytes and stored compressed (splitJson.ts, jsonBytes.ts, idempotency/repo.ts):
 * the client must not be able to tell.
 */
describe('large batches under the real server', () => {
  const batchOf = (runId: string, n: number, title: (i: number) => string) =>
    ({ tests: Array.from({ length: n }, (_, i) => testBody(runId, t.projectId, { fullTitle: title(i), title: title(i), attempts: [{ retry: 0, status: 'passed', duration: 5, errors: [] }] })) });
  const inPieces = (text: string) => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]);
    return [bytes.subarray(0, 70_001), bytes.subarray(70_001, 140_003), bytes.subarray(140_003)];
  };

  it('stores every result of a 500-test batch sent in pieces, and replays the same answer byte for byte', async () => {
    const run = await createRun(t);
    const body = JSON.stringify(batchOf(run.id, 500, (i) => `big € batch ${i} 😀`));
    expect(body.length).toBeGreaterThan(128 * 1024);
    const first = await post('/api/v1/tests/batch', inPieces(body), { key: 'big-batch-1' });
    expect(first.status).toBe(201);
    const data = JSON.parse(first.body).data as { fullTitle: string; runId: string }[];
    expect(data.map((d) => d.fullTitle)).toEqual(Array.from({ length: 500 }, (_, i) => `big € batch ${i} 😀`));
    const stored = await t.server.services.deps.db.selectFrom('tests').select('full_title').where('run_id', '=', run.id).execute();
    expect(stored).toHaveLength(500);

    const again = await post('/api/v1/tests/batch', inPieces(body), { key: 'big-batch-1' });
    expect(again.status).toBe(201);
    expect(again.replayed).toBe('true');
    expect(again.body).toBe(first.body);
    const record = await t.server.services.deps.db.selectFrom('idempotency_keys').select(['response_body', 'response_brotli']).where('key', '=', 'big-batch-1').executeTakeFirstOrThrow();
    expect(record.response_body).toBeNull();
    expect(record.response_brotli!.length).toBeLessThan(first.body.length / 4);
    // The same key with another body is still told apart.
    const other = await post('/api/v1/tests/batch', inPieces(body.replace('big € batch 7 ', 'big € batch 7b')), { key: 'big-batch-1' });
    expect(other.status).toBe(409);
  });

  it('answers a malformed large body with the message of a whole-text parse, and repairs an escaped lone surrogate', async () => {
    const run = await createRun(t);
    const body = JSON.stringify(batchOf(run.id, 300, (i) => `malformed ${i}`));
    const broken = body.replace('"malformed 150"', '"malformed 150');
    let message = '';
    try {
      JSON.parse(broken);
    } catch (err) {
      message = (err as Error).message;
    }
    const bad = await post('/api/v1/tests/batch', inPieces(broken));
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body).error.message).toBe(`Malformed JSON: ${message}`);

    const lone = await post('/api/v1/tests/batch', inPieces(body.replaceAll('"malformed 3"', '"malformed \\uD800 \\ud83d"')));
    expect(lone.status).toBe(201);
    expect((JSON.parse(lone.body).data as { fullTitle: string }[])[3].fullTitle).toBe('malformed \uFFFD \uFFFD');
  });
});
