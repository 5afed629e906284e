import { crc32, deflateSync } from 'node:zlib';
import { readdirSync, statSync } from 'node:fs';
import { request, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { newId } from '../lib/ids.js';
import type { TestServer } from './harness.js';

// Real, minimal files of every accepted format, built here so the tests carry no binary fixtures.

const be32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
};
const pad = (head: Buffer, total: number) => Buffer.concat([head, Buffer.alloc(Math.max(0, total - head.length), 0x20)]);

function pngChunk(type: string, data: Buffer) {
  const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  return Buffer.concat([be32(data.length), td, be32(crc32(td))]);
}
/** A valid 1×1 RGBA PNG. */
export function png(): Buffer {
  const ihdr = Buffer.concat([be32(1), be32(1), Buffer.from([8, 6, 0, 0, 0])]);
  const idat = deflateSync(Buffer.from([0, 255, 0, 0, 255]));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), pngChunk('IHDR', ihdr), pngChunk('IDAT', idat), pngChunk('IEND', Buffer.alloc(0))]);
}
export const jpeg = (size = 2048) => pad(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00]), size);
export const gif = (size = 1024) => pad(Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00', 'latin1'), size);
export function webp(size = 1024): Buffer {
  const body = pad(Buffer.concat([Buffer.from('WEBPVP8 '), Buffer.from([0, 0, 0, 0])]), size - 8);
  const size32 = Buffer.alloc(4);
  size32.writeUInt32LE(body.length);
  return Buffer.concat([Buffer.from('RIFF'), size32, body]);
}
/** The EBML header of a WebM file (DocType "webm"); the rest of a real file is clusters. */
export const webmHeader = () =>
  Buffer.from([
    0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, 0x01, 0x42, 0xf7, 0x81, 0x01, 0x42, 0xf2, 0x81, 0x04, 0x42, 0xf3, 0x81, 0x08,
    0x42, 0x82, 0x84, 0x77, 0x65, 0x62, 0x6d, 0x42, 0x87, 0x81, 0x04, 0x42, 0x85, 0x81, 0x02,
  ]);
export const webm = (size = 4096) => pad(webmHeader(), size);
export const mp4 = (size = 4096) => pad(Buffer.concat([be32(0x20), Buffer.from('ftypisom'), be32(0x200), Buffer.from('isomiso2avc1mp41')]), size);

/** A real ZIP archive (stored entries, no compression) with the given files. */
export function zip(files: Record<string, string | Buffer>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, content] of Object.entries(files)) {
    const data = Buffer.isBuffer(content) ? content : Buffer.from(content);
    const fname = Buffer.from(name);
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt32LE(crc >>> 0, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(fname.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt32LE(crc >>> 0, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(fname.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, fname, data);
    centrals.push(central, fname);
    offset += local.length + fname.length + data.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(files).length, 8);
  end.writeUInt16LE(Object.keys(files).length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

/** `size` bytes starting with `head`, produced 64 KB at a time: big uploads without holding them in memory. */
export async function* generated(head: Buffer, size: number, chunk = 64 * 1024): AsyncGenerator<Buffer> {
  yield head.subarray(0, Math.min(head.length, size));
  let sent = Math.min(head.length, size);
  const filler = Buffer.alloc(chunk, 0x41);
  while (sent < size) {
    const n = Math.min(chunk, size - sent);
    yield n === chunk ? filler : filler.subarray(0, n);
    sent += n;
  }
}

export interface UploadOptions {
  auth: string;
  fields: Record<string, string>;
  fileName?: string;
  /** Replaces `filename="…"` in the file part's Content-Disposition (e.g. to add `filename*`). */
  fileNameParams?: string;
  contentType?: string;
  content?: Buffer | AsyncIterable<Buffer>;
  /** Puts the file part before the fields (which the server refuses). */
  fileFirst?: boolean;
  headers?: Record<string, string>;
  /** Aborts the request mid-body (the client disconnects). */
  signal?: AbortSignal;
  /** Sends over node:http instead of fetch (see uploadViaNodeHttp). */
  viaNodeHttp?: boolean;
}

/** POST /upload as a streamed multipart body, fields first (as the SDK sends them). */
export async function upload(t: TestServer, opts: UploadOptions) {
  const boundary = `----testreport${newId()}`;
  const fieldParts = Object.entries(opts.fields).map(([k, v]) => Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  const fileHead = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; ${opts.fileNameParams ?? `filename="${opts.fileName ?? 'file.bin'}"`}\r\nContent-Type: ${opts.contentType ?? 'application/octet-stream'}\r\n\r\n`,
  );
  async function* body() {
    if (!opts.fileFirst) yield* fieldParts;
    if (opts.content !== undefined) {
      yield fileHead;
      if (Buffer.isBuffer(opts.content)) yield opts.content;
      else yield* opts.content;
      yield Buffer.from('\r\n');
    }
    if (opts.fileFirst) yield* fieldParts;
    yield Buffer.from(`--${boundary}--\r\n`);
  }
  if (opts.viaNodeHttp) return uploadViaNodeHttp(t, opts, boundary, body());
  const iterator = body();
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { value, done } = await iterator.next();
      if (done) controller.close();
      else controller.enqueue(new Uint8Array(value));
    },
  });
  const res = await fetch(`${t.baseUrl}/upload`, {
    method: 'POST',
    headers: { 'X-API-Key': opts.auth, 'Content-Type': `multipart/form-data; boundary=${boundary}`, ...opts.headers },
    body: stream,
    signal: opts.signal,
    duplex: 'half',
  } as RequestInit);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
}

/**
 * The same request over node:http, which sends each chunk and lets it go: undici's fetch keeps every
 * chunk of a streamed request body until the response, which a test measuring the server's memory
 * in the same process would count as the server's.
 */
async function uploadViaNodeHttp(t: TestServer, opts: UploadOptions, boundary: string, body: AsyncGenerator<Buffer>) {
  const headers = { 'X-API-Key': opts.auth, 'Content-Type': `multipart/form-data; boundary=${boundary}`, ...opts.headers };
  const req = request(`${t.baseUrl}/upload`, { method: 'POST', headers, signal: opts.signal });
  const answered = new Promise<IncomingMessage>((resolve, reject) => req.once('response', resolve).once('error', reject));
  // A 4xx may come before the body is sent; the pipeline's own error then says nothing the answer doesn't.
  pipeline(Readable.from(body), req).catch(() => {});
  const res = await answered;
  let text = '';
  for await (const c of res) text += c;
  return { status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null, headers: new Headers(res.headers as Record<string, string>) };
}

/** A run row written directly, so artifact and webhook tests do not depend on the runs service. */
export async function insertRun(t: TestServer, projectId = t.projectId, over: Record<string, unknown> = {}) {
  const now = new Date().toISOString();
  const row = {
    id: newId(), project_id: projectId, status: 'running', branch: 'main', commit_sha: 'abc1234', commit_message: 'Fix things',
    commit_author: null, ci_provider: null, ci_build_id: null, ci_build_url: 'https://ci.example.test/1', framework_version: null,
    workers: 1, shard_current: null, shard_total: null, browser: null, os: null, viewport: null, hostname: null, run_title: null,
    total_tests: null, passed_tests: null, failed_tests: null, skipped_tests: null, flaky_tests: null, duration: null,
    finished_at: null, created_at: now, updated_at: now, ...over,
  };
  await t.server.services.deps.db.insertInto('runs').values(row as never).execute();
  return row;
}

export async function insertTest(t: TestServer, run: { id: string; project_id: string }) {
  const now = new Date().toISOString();
  const caseId = newId();
  const db = t.server.services.deps.db;
  await db.insertInto('test_cases').values({ id: caseId, project_id: run.project_id, full_title: `case ${caseId}`, title: 'case', latest_test_id: null, quarantined_at: null, quarantine_source: null, last_flaky_at: null, created_at: now, updated_at: now }).execute();
  const id = newId();
  await db.insertInto('tests').values({ id, run_id: run.id, project_id: run.project_id, case_id: caseId, title: 'case', full_title: `case ${caseId}`, file_path: 'a.spec.ts', line_number: 1, status: 'passed', duration: 1, tags: null, annotations: null, error: null, error_message: null, steps: null, stdout: null, stderr: null, branch: null, commit_sha: null, created_at: now }).execute();
  return id;
}

/** Every regular file under a directory (temp files included), for "nothing was left behind" checks. */
export function filesUnder(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  return entries.flatMap((e) => {
    const p = join(dir, e);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}
