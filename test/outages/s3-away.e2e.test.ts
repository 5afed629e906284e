import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ServerError, TestReportClient } from '@testreport/client';
import { jpeg, startSwift, webm, type SwiftS3 } from '@testreport/server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../cli/helpers.js';
import { assertServerBuilt, initDataDir, startServerProcess, type ServerProcess } from '../crash/serverProcess.js';

// Issue 26: the object store going away and coming back. While it is away an upload is answered 503
// with Retry-After (a client retries it; it was not the client's fault), no artifact row names a file
// that is not there, and once it is back the same uploads succeed — the server was never restarted.

const MB = 1024 * 1024;
let swift: SwiftS3;
let server: ServerProcess;
let dataDir: string;
let auth: { projectId: string; apiKey: string };
const PREFIX = 'outage/';

beforeAll(async () => {
  assertServerBuilt();
  swift = await startSwift();
  dataDir = tempDir('testreport-s3-away-');
  const env = {
    TESTREPORT_STORAGE: `s3://${swift.bucket}/${PREFIX}`,
    AWS_ENDPOINT_URL_S3: swift.endpoint,
    AWS_REGION: swift.connection.region,
    AWS_ACCESS_KEY_ID: swift.connection.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: swift.connection.credentials.secretAccessKey,
  };
  auth = initDataDir(dataDir, env);
  server = await startServerProcess(dataDir, env);
}, 180_000);

afterAll(async () => {
  await server?.stop();
  await swift?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** A body that sends `head` at once and the rest only when `more` resolves: an upload in flight. */
async function* held(head: Buffer, rest: Buffer, more: Promise<void>): AsyncGenerator<Buffer> {
  yield head;
  await more;
  yield rest;
}

describe('the S3 store (Swift) stopped and started during uploads', () => {
  it('answers 503 with Retry-After while it is away, leaves nothing half-written, and takes the uploads once it is back', async () => {
    // maxRetries 0: the answers themselves are under test here (the SDK would retry a 503).
    const client = new TestReportClient({ url: server.url, apiKey: auth.apiKey, maxRetries: 0 });
    const run = await client.runs.create({ projectId: auth.projectId, status: 'running' });
    const base = { runId: run.id, projectId: auth.projectId };
    const before = await client.artifacts.upload({ ...base, file: jpeg(4096), fileName: 'before.jpg', type: 'screenshot' });

    // An upload in flight when the store goes away: its first 5 MiB part is in the bucket already.
    let release!: () => void;
    const more = new Promise<void>((r) => (release = r));
    const video = webm(7 * MB);
    const inFlight = client.artifacts
      .upload({ ...base, file: held(video.subarray(0, 6 * MB), video.subarray(6 * MB), more), fileName: 'in-flight.webm', type: 'video' })
      .then(() => undefined, (e: unknown) => e);
    await new Promise((r) => setTimeout(r, 1_500));
    await swift.stop();
    release();

    const away: unknown[] = [await inFlight];
    for (const [file, fileName, type] of [[jpeg(8192), 'away.jpg', 'screenshot'], [webm(6 * MB), 'away.webm', 'video']] as const) {
      away.push(await client.artifacts.upload({ ...base, file, fileName, type }).then(() => undefined, (e: unknown) => e));
    }
    for (const e of away) {
      expect(e).toBeInstanceOf(ServerError);
      const err = e as ServerError;
      expect(err.status).toBe(503);
      expect(err.code).toBe('SERVICE_UNAVAILABLE');
      expect(Number(err.headers?.get('retry-after'))).toBeGreaterThan(0);
    }
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({ status: 'unavailable', storage: 'unreachable', database: 'ok' });
    // No artifact row was written for an upload the store did not take.
    const rows = () => {
      const db = new Database(join(dataDir, 'testreport.db'), { readonly: true });
      try {
        return (db.prepare('select file_name from artifacts where run_id = ? order by file_name').all(run.id) as { file_name: string }[]).map((r) => r.file_name);
      } finally {
        db.close();
      }
    };
    expect(rows()).toEqual(['before.jpg']);

    await swift.start();
    // Same server process: the uploads go through as they are, and the earlier one is still served.
    expect(server.child.exitCode).toBeNull();
    const again = await new TestReportClient({ url: server.url, apiKey: auth.apiKey }).artifacts.upload({ ...base, file: video, fileName: 'in-flight.webm', type: 'video' });
    expect(again.fileSize).toBe(video.length);
    await client.artifacts.upload({ ...base, file: jpeg(8192), fileName: 'away.jpg', type: 'screenshot' });
    expect(rows()).toEqual(['away.jpg', 'before.jpg', 'in-flight.webm']);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);

    // Exactly the three stored artifacts are in the bucket: no object, and (once the server has
    // removed the parts of the upload cut off mid-way, which it retries until the store is back)
    // no unfinished multipart upload, is left of the uploads that failed.
    const runPrefix = `${PREFIX}projects/${auth.projectId}/runs/${run.id}/`;
    const { data } = await client.artifacts.list({ runId: run.id });
    const stored = data.map((a) => `${runPrefix}${a.id}`).sort();
    const deadline = Date.now() + 30_000;
    let contents = (await swift.contents(swift.bucket, runPrefix)).sort();
    while (JSON.stringify(contents) !== JSON.stringify(stored) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 500));
      contents = (await swift.contents(swift.bucket, runPrefix)).sort();
    }
    expect(contents).toEqual(stored);
    const downloaded = await fetch(data.find((a) => a.id === before.id)!.url);
    expect(downloaded.status).toBe(200);
  }, 240_000);
});
