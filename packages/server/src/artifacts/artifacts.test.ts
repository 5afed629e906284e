import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ARTIFACT_RULES } from '@testreport/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { filesUnder, generated, gif, insertRun, insertTest, jpeg, mp4, png, upload, webm, webmHeader, webp, zip } from '../testing/artifacts.js';

let t: TestServer;
let run: Awaited<ReturnType<typeof insertRun>>;
beforeAll(async () => {
  t = await startTestServer();
  run = await insertRun(t);
});
afterAll(async () => {
  await t?.close();
});

const fieldsFor = (type: string, over: Record<string, string> = {}) => ({ type, runId: run.id, projectId: t.projectId, ...over });
/** V8's full collection, exposed at run time (the test workers start without --expose-gc). */
function forcedGc(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}
const artifactDir = () => join(t.dataDir, 'artifacts');

async function download(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers });
  return { res, bytes: Buffer.from(await res.arrayBuffer()) };
}

describe('POST /upload', () => {
  const samples = [
    { type: 'screenshot', name: 'shot.png', bytes: png(), mime: 'image/png' },
    { type: 'screenshot', name: 'shot.jpg', bytes: jpeg(), mime: 'image/jpeg' },
    { type: 'screenshot', name: 'shot.webp', bytes: webp(), mime: 'image/webp' },
    { type: 'screenshot', name: 'shot.gif', bytes: gif(), mime: 'image/gif' },
    { type: 'video', name: 'video.webm', bytes: webm(), mime: 'video/webm' },
    { type: 'video', name: 'video.mp4', bytes: mp4(), mime: 'video/mp4' },
    { type: 'trace', name: 'trace.zip', bytes: zip({ 'trace.trace': '{"type":"context-options"}\n', 'trace.network': '' }), mime: 'application/zip' },
    { type: 'report', name: 'report.zip', bytes: zip({ 'index.html': '<!doctype html><title>report</title>' }), mime: 'application/zip' },
  ];

  for (const s of samples) {
    it(`stores a ${s.mime} ${s.type} and serves the same bytes from its signed URL`, async () => {
      const up = await upload(t, { auth: t.apiKey, fields: fieldsFor(s.type), fileName: s.name, content: s.bytes });
      expect(up.status).toBe(201);
      expect(up.body).toMatchObject({ type: s.type, fileName: s.name, fileSize: s.bytes.length, mimeType: s.mime, runId: run.id, testId: null });
      expect(up.body.url).toMatch(new RegExp(`^${t.url}/storage/${up.body.id}\\?expires=\\d+&token=`));
      expect(new Date(up.body.expiresAt).getTime()).toBeGreaterThan(Date.now());

      const { res, bytes } = await download(up.body.url);
      expect(res.status).toBe(200);
      expect(bytes.equals(s.bytes)).toBe(true);
      expect(res.headers.get('content-type')).toBe(s.mime);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('accept-ranges')).toBe('bytes');
      const disposition = s.type === 'trace' || s.type === 'report' ? 'attachment' : 'inline';
      expect(res.headers.get('content-disposition')).toBe(`${disposition}; filename="${s.name}"; filename*=UTF-8''${s.name}`);
    });
  }

  it('reads a non-ASCII file name as UTF-8, and prefers filename* when the client sends it', async () => {
    // Raw UTF-8 bytes in the quoted name: what browsers, curl and Node's FormData send.
    const raw = await upload(t, { auth: t.apiKey, fields: fieldsFor('screenshot'), fileName: 'café 截图.png', content: png() });
    expect(raw.status).toBe(201);
    expect(raw.body.fileName).toBe('café 截图.png');
    const { res } = await download(raw.body.url);
    expect(res.headers.get('content-disposition')).toBe(`inline; filename="caf_ __.png"; filename*=UTF-8''${encodeURIComponent('café 截图.png')}`);
    const listed = await t.api('GET', `/artifacts?runId=${run.id}`, { auth: t.apiKey });
    expect(listed.body.data.map((a: { fileName: string }) => a.fileName)).toContain('café 截图.png');

    const star = await upload(t, { auth: t.apiKey, fields: fieldsFor('screenshot'), fileNameParams: `filename="cafe.png"; filename*=UTF-8''caf%C3%A9.png`, content: png() });
    expect(star.status).toBe(201);
    expect(star.body.fileName).toBe('café.png');
  });

  it('stores under a generated key, never the client file name, and sanitises the name it keeps', async () => {
    const up = await upload(t, { auth: t.apiKey, fields: fieldsFor('screenshot'), fileName: '../../etc/pass<wd>.png', content: png() });
    expect(up.status).toBe(201);
    expect(up.body.fileName).toBe('pass_wd_.png');
    const row = await t.server.services.deps.db.selectFrom('artifacts').selectAll().where('id', '=', up.body.id).executeTakeFirstOrThrow();
    expect(row.storage_key).toBe(`projects/${t.projectId}/runs/${run.id}/${up.body.id}`);
    expect(row.sha256).toBe(createHash('sha256').update(png()).digest('hex'));
    expect(filesUnder(artifactDir())).toContain(join(artifactDir(), row.storage_key));
  });

  it('refuses a text file named shot.png by its content (400 unsupported_format)', async () => {
    const before = filesUnder(artifactDir()).length;
    const up = await upload(t, { auth: t.apiKey, fields: fieldsFor('screenshot'), fileName: 'shot.png', contentType: 'image/png', content: Buffer.from('just some text, not an image\n'.repeat(300)) });
    expect(up.status).toBe(400);
    expect(up.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'file', reason: 'unsupported_format' } });
    expect(filesUnder(artifactDir()).length).toBe(before);
  });

  it('refuses a real format that is not allowed for the type (a PNG as a trace, a ZIP as a video)', async () => {
    const a = await upload(t, { auth: t.apiKey, fields: fieldsFor('trace'), fileName: 'trace.zip', content: png() });
    expect(a.body.error.details).toMatchObject({ field: 'file', reason: 'unsupported_format' });
    const b = await upload(t, { auth: t.apiKey, fields: fieldsFor('video'), fileName: 'v.webm', content: zip({ a: 'b' }) });
    expect(b.body.error.details).toMatchObject({ field: 'file', reason: 'unsupported_format' });
  });

  const heads = { screenshot: png(), video: webmHeader(), trace: zip({ 'trace.trace': 'x' }), report: zip({ 'index.html': 'x' }) };
  for (const [type, head] of Object.entries(heads)) {
    it(`answers 413 one byte over the ${type} cap and leaves no file on disk`, async () => {
      const before = filesUnder(artifactDir()).length;
      const max = ARTIFACT_RULES[type as keyof typeof heads].maxBytes;
      const up = await upload(t, { auth: t.apiKey, fields: fieldsFor(type), fileName: 'big', content: generated(head, max + 1, 1024 * 1024) });
      expect(up.status).toBe(413);
      expect(up.body.error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', details: { field: 'file', maxBytes: max } });
      expect(filesUnder(artifactDir()).length).toBe(before);
    }, 120_000);
  }

  it('accepts a file of exactly the cap', async () => {
    const max = ARTIFACT_RULES.screenshot.maxBytes;
    const up = await upload(t, { auth: t.apiKey, fields: fieldsFor('screenshot'), fileName: 'exact.jpg', content: generated(jpeg(), max) });
    expect(up.status).toBe(201);
    expect(up.body.fileSize).toBe(max);
  });

  it('streams a 100 MB video without holding it in memory', async () => {
    const size = ARTIFACT_RULES.video.maxBytes;
    // Live memory after a full collection, not RSS: RSS also counts chunks already dropped but not yet
    // collected (V8 collects external buffers only every ~64 MB of them), which made a streamed upload
    // look like 36 MB of growth on a loaded CI machine. A buffered upload stays live, and is caught.
    const gc = forcedGc();
    const live = () => {
      gc();
      const m = process.memoryUsage();
      return m.heapUsed + m.external;
    };
    const start = live();
    let peak = start;
    const timer = setInterval(() => (peak = Math.max(peak, live())), 100);
    try {
      const up = await upload(t, { auth: t.apiKey, fields: fieldsFor('video'), fileName: 'big.webm', content: generated(webmHeader(), size), viaNodeHttp: true });
      expect(up.status).toBe(201);
      expect(up.body.fileSize).toBe(size);
    } finally {
      clearInterval(timer);
    }
    // Buffering the upload would keep at least its 100 MB live by its end; streaming keeps a few chunks.
    expect(peak - start).toBeLessThan(size / 3);
  }, 120_000);

  it('needs the fields before the file part, and all required fields', async () => {
    const late = await upload(t, { auth: t.apiKey, fields: fieldsFor('screenshot'), content: png(), fileFirst: true });
    expect(late.status).toBe(400);
    expect(late.body.error.details).toMatchObject({ field: 'type', reason: 'required' });
    const noType = await upload(t, { auth: t.apiKey, fields: { runId: run.id, projectId: t.projectId }, content: png() });
    expect(noType.body.error.details).toMatchObject({ field: 'type', reason: 'required' });
    const badType = await upload(t, { auth: t.apiKey, fields: fieldsFor('movie'), content: png() });
    expect(badType.body.error.details).toMatchObject({ field: 'type', reason: 'invalid_value' });
    const noFile = await upload(t, { auth: t.apiKey, fields: fieldsFor('screenshot') });
    expect(noFile.status).toBe(400);
    expect(noFile.body.error.details).toMatchObject({ field: 'file', reason: 'required' });
    const json = await t.api('POST', '/upload', { auth: t.apiKey, body: { type: 'screenshot' } });
    expect(json.status).toBe(400);
  });

  it('checks that run, test and project belong together and to the caller', async () => {
    const other = await t.createOtherTenant();
    const otherRun = await insertRun(t, other.projectId);
    const foreignProject = await upload(t, { auth: t.apiKey, fields: fieldsFor('screenshot', { projectId: other.projectId, runId: otherRun.id }), content: png() });
    expect(foreignProject.status).toBe(403);
    const foreignRun = await upload(t, { auth: t.apiKey, fields: fieldsFor('screenshot', { runId: otherRun.id }), content: png() });
    expect(foreignRun.status).toBe(404);
    const otherRunOwnProject = await insertRun(t);
    const testElsewhere = await insertTest(t, otherRunOwnProject);
    const wrongTest = await upload(t, { auth: t.apiKey, fields: fieldsFor('screenshot', { testId: testElsewhere }), content: png() });
    expect(wrongTest.status).toBe(404);
    const viewer = await t.createUser({ teamId: t.teamId, role: 'viewer' });
    const res = await fetch(`${t.baseUrl}/upload`, { method: 'POST', headers: { Cookie: viewer.cookie, Origin: new URL(t.url).origin, 'Content-Type': 'multipart/form-data; boundary=x' }, body: `--x\r\nContent-Disposition: form-data; name="type"\r\n\r\nscreenshot\r\n--x\r\nContent-Disposition: form-data; name="runId"\r\n\r\n${run.id}\r\n--x\r\nContent-Disposition: form-data; name="projectId"\r\n\r\n${t.projectId}\r\n--x\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\n${png().toString('latin1')}\r\n--x--\r\n` });
    expect(res.status).toBe(403);
    // The role refuses it, not the CSRF rule (the upload is sent as the dashboard would, with its Origin).
    expect(((await res.json()) as { error: { message: string } }).error.message).not.toMatch(/refused/);
  });
});

describe('signed downloads', () => {
  it('refuses tampered, foreign and expired URLs with 403', async () => {
    const up = await upload(t, { auth: t.apiKey, fields: fieldsFor('screenshot'), fileName: 'a.png', content: png() });
    const other = await upload(t, { auth: t.apiKey, fields: fieldsFor('screenshot'), fileName: 'b.png', content: png() });
    const url = new URL(up.body.url);
    const tamperedToken = new URL(url);
    const tok = url.searchParams.get('token')!;
    tamperedToken.searchParams.set('token', (tok[0] === 'A' ? 'B' : 'A') + tok.slice(1));
    const extended = new URL(url);
    extended.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
    const swapped = new URL(other.body.url);
    swapped.pathname = url.pathname;
    const bare = new URL(url);
    bare.search = '';
    for (const u of [tamperedToken, extended, swapped, bare]) {
      const res = await fetch(u);
      expect(res.status).toBe(403);
      expect(((await res.json()) as any).error.code).toBe('FORBIDDEN');
    }
  });

  it('stops working once expired', async () => {
    let now = Date.now();
    const clock = await startTestServer({ now: () => new Date(now), signedUrlTtlSeconds: 60 });
    try {
      const r = await insertRun(clock);
      const up = await upload(clock, { auth: clock.apiKey, fields: { type: 'screenshot', runId: r.id, projectId: clock.projectId }, content: png() });
      expect((await fetch(up.body.url)).status).toBe(200);
      now += 61_000;
      const res = await fetch(up.body.url);
      expect(res.status).toBe(403);
      expect(((await res.json()) as any).error.message).toMatch(/expired/);
    } finally {
      await clock.close();
    }
  });

  it('serves byte ranges of a video (206) so players can seek', async () => {
    const bytes = webm(10_000);
    const up = await upload(t, { auth: t.apiKey, fields: fieldsFor('video'), fileName: 'seek.webm', content: bytes });
    const mid = await download(up.body.url, { Range: 'bytes=100-199' });
    expect(mid.res.status).toBe(206);
    expect(mid.res.headers.get('content-range')).toBe(`bytes 100-199/${bytes.length}`);
    expect(mid.bytes.equals(bytes.subarray(100, 200))).toBe(true);
    const open = await download(up.body.url, { Range: 'bytes=9990-' });
    expect(open.bytes.equals(bytes.subarray(9990))).toBe(true);
    const suffix = await download(up.body.url, { Range: 'bytes=-10' });
    expect(suffix.bytes.equals(bytes.subarray(-10))).toBe(true);
    const past = await download(up.body.url, { Range: 'bytes=20000-' });
    expect(past.res.status).toBe(416);
    expect(past.res.headers.get('content-range')).toBe(`bytes */${bytes.length}`);
  });
});

describe('download edge cases', () => {
  it('answers HEAD with the size, and 404 once the file is gone even with a valid link', async () => {
    const bytes = png();
    const up = await upload(t, { auth: t.apiKey, fields: fieldsFor('screenshot'), fileName: 'gone.png', content: bytes });
    const head = await fetch(up.body.url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(bytes.length));
    await t.server.services.deps.store.deletePrefix(`projects/${t.projectId}/runs/${run.id}/`);
    expect((await fetch(up.body.url)).status).toBe(404);
  });
});

describe('GET /artifacts', () => {
  it('lists a run or a test with fresh URLs, newest first, hidden from other tenants', async () => {
    const r = await insertRun(t);
    const testId = await insertTest(t, r);
    const a = await upload(t, { auth: t.apiKey, fields: { type: 'screenshot', runId: r.id, projectId: t.projectId }, fileName: 'run.png', content: png() });
    const b = await upload(t, { auth: t.apiKey, fields: { type: 'trace', runId: r.id, projectId: t.projectId, testId }, fileName: 't.zip', content: zip({ x: 'y' }) });
    const all = await t.api('GET', `/artifacts?runId=${r.id}`, { auth: t.apiKey });
    expect(all.status).toBe(200);
    expect(all.body.data.map((x: { id: string }) => x.id)).toEqual([b.body.id, a.body.id]);
    const ofTest = await t.api('GET', `/artifacts?runId=${r.id}&testId=${testId}`, { auth: t.owner });
    expect(ofTest.body.data).toHaveLength(1);
    expect(ofTest.body.data[0]).toMatchObject({ id: b.body.id, testId, fileName: 't.zip' });
    expect((await fetch(ofTest.body.data[0].url)).status).toBe(200);

    const viewer = await t.createUser({ teamId: t.teamId, role: 'viewer' });
    expect((await t.api('GET', `/artifacts?runId=${r.id}`, { auth: viewer })).status).toBe(200);
    const other = await t.createOtherTenant();
    expect((await t.api('GET', `/artifacts?runId=${r.id}`, { auth: other.apiKey })).status).toBe(404);
    expect((await t.api('GET', `/artifacts?runId=${r.id}`, { auth: other.owner })).status).toBe(404);
    expect((await t.api('GET', `/artifacts`, { auth: t.apiKey })).body.error.details).toMatchObject({ field: 'runId', reason: 'required' });
  });
});
