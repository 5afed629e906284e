import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { http, HttpResponse } from 'msw';
import { afterAll, describe, expect, it } from 'vitest';
import { ARTIFACT_RULES, PayloadTooLargeError, ServerError } from '../index.js';
import { buildMultipart } from '../core/multipart.js';
import { MOCK_BASE, mockClient, useMockApi } from '../testing/mockApi.js';

const { server, seen } = useMockApi();
const dir = mkdtempSync(join(tmpdir(), 'sdk-upload-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const target = { type: 'screenshot', runId: 'r-1', projectId: 'p-1', testId: 't-1' } as const;
const artifact = { id: 'a-1', runId: 'r-1', testId: 't-1', type: 'screenshot', fileName: 'shot.png', fileSize: 4, mimeType: 'image/png', url: 'u', expiresAt: 'x', createdAt: 'x' };

/** Captures the raw multipart body the SDK sent, in the order it was sent. */
function captureUpload(status = 201) {
  const bodies: Array<{ text: string; contentType: string | null; contentLength: string | null }> = [];
  server.use(
    http.post(`${MOCK_BASE}/upload`, async ({ request }) => {
      bodies.push({ text: Buffer.from(await request.arrayBuffer()).toString('latin1'), contentType: request.headers.get('content-type'), contentLength: request.headers.get('content-length') });
      return status === 201 ? HttpResponse.json(artifact, { status }) : HttpResponse.json({ error: { code: 'INTERNAL_ERROR', message: 'busy' } }, { status });
    }),
  );
  return bodies;
}

describe('artifacts.upload on the wire', () => {
  it('sends the fields first, then the file part, with its name, type and Content-Length', async () => {
    const bodies = captureUpload();
    const path = join(dir, 'shot.png');
    writeFileSync(path, 'PNG!');
    expect(await mockClient().artifacts.upload({ ...target, file: path })).toEqual(artifact);
    const { text, contentType, contentLength } = bodies[0]!;
    expect(contentType).toMatch(/^multipart\/form-data; boundary=/);
    expect(Number(contentLength)).toBe(Buffer.byteLength(text, 'latin1'));
    const order = ['name="type"', 'name="runId"', 'name="projectId"', 'name="testId"', 'name="file"; filename="shot.png"'].map((s) => text.indexOf(s));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(text).toContain('Content-Type: image/png\r\n\r\nPNG!\r\n');
    expect(seen[0]!.headers.get('idempotency-key')).toBeTruthy();
  });

  it('uploads a Buffer under a given file name', async () => {
    const bodies = captureUpload();
    await mockClient().artifacts.upload({ ...target, type: 'trace', file: Buffer.from('PK..'), fileName: 'trace.zip' });
    expect(bodies[0]!.text).toContain('filename="trace.zip"\r\nContent-Type: application/zip\r\n\r\nPK..');
  });

  it('retries an upload from a path with the same bytes and Idempotency-Key', async () => {
    let calls = 0;
    const bodies: string[] = [];
    server.use(
      http.post(`${MOCK_BASE}/upload`, async ({ request }) => {
        bodies.push(await request.text());
        return ++calls === 1 ? HttpResponse.json({ error: { code: 'X', message: 'busy' } }, { status: 503 }) : HttpResponse.json(artifact, { status: 201 });
      }),
    );
    const path = join(dir, 'retry.png');
    writeFileSync(path, 'x'.repeat(10_000));
    await mockClient().artifacts.upload({ ...target, file: path });
    expect(bodies).toHaveLength(2);
    expect(bodies[1]).toBe(bodies[0]);
    expect(seen[1]!.headers.get('idempotency-key')).toBe(seen[0]!.headers.get('idempotency-key'));
  });

  it('streams a Readable without Content-Length and does not retry it (a stream cannot be replayed)', async () => {
    const bodies = captureUpload(503);
    const err = await mockClient().artifacts.upload({ ...target, file: Readable.from([Buffer.from('ab'), Buffer.from('cd')]), fileName: 's.png' }).catch((e) => e);
    expect(err).toBeInstanceOf(ServerError);
    expect(bodies).toHaveLength(1);
    expect(bodies[0]!.contentLength).toBeNull();
    expect(bodies[0]!.text).toContain('\r\n\r\nabcd\r\n');
  });

  it('refuses a path or Buffer over the type cap locally, without a request', async () => {
    const max = ARTIFACT_RULES.screenshot.maxBytes;
    const big = join(dir, 'big.png');
    writeFileSync(big, '');
    truncateSync(big, max + 1); // sparse: the check must use the size, not read the file
    for (const file of [big, Buffer.alloc(max + 1)]) {
      const err = await mockClient().artifacts.upload({ ...target, file }).catch((e) => e);
      expect(err).toBeInstanceOf(PayloadTooLargeError);
      expect(err).toMatchObject({ status: 413, code: 'PAYLOAD_TOO_LARGE', details: { field: 'file', reason: 'too_long', maxBytes: max, size: max + 1 } });
      expect(err.message).toContain('at most 5.0 MiB');
    }
    expect(seen).toHaveLength(0);
  });
});

describe('multipart body', () => {
  it('pulls the file lazily: the head goes out before the file is read, one chunk at a time', async () => {
    let pulled = 0;
    async function* source() {
      for (let i = 0; i < 1000; i++) {
        pulled++;
        yield new Uint8Array(64 * 1024);
      }
    }
    const body = buildMultipart([['type', 'video']], 'file', { fileName: 'v.webm', contentType: 'video/webm', open: source });
    const reader = body.stream()[Symbol.asyncIterator]();
    const first = await reader.next();
    expect(Buffer.from(first.value!).toString()).toContain('name="type"');
    expect(pulled).toBe(0);
    await reader.next();
    expect(pulled).toBe(1);
    await reader.return?.();
  });

  it('refuses a field value with a line break, which would forge a part', () => {
    expect(() => buildMultipart([['runId', 'r\r\n--x']], 'file', { fileName: 'a', contentType: 'a/b', open: async function* () {} })).toThrow(/line break/);
  });
});
