import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { filesUnder, png, upload, type TestServer } from '@testreport/server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../cli/helpers.js';
import { assertServerBuilt, initDataDir, startServerProcess, type ServerProcess } from './serverProcess.js';

/**
 * Issue 15.1, upload half: a server killed with SIGKILL while an upload with an Idempotency-Key is
 * streaming in. After the restart the same upload with the same key must be stored, once, and the
 * partial file of the killed attempt must be gone.
 */
let dataDir: string;
let auth: { projectId: string; apiKey: string };
let server: ServerProcess | undefined;

beforeAll(() => {
  assertServerBuilt();
  dataDir = tempDir('crash-upload-');
  auth = initDataDir(dataDir);
});
afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const target = (url: string) => ({ baseUrl: `${url}/api/v1` }) as TestServer;

describe('crash safety of idempotent uploads (real binary, kill -9)', () => {
  it('stores an upload re-sent with its key after the server died mid-file, once, with no partial file left', async () => {
    server = await startServerProcess(dataDir);
    const res = await fetch(`${server.url}/api/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': auth.apiKey },
      body: JSON.stringify({ projectId: auth.projectId, status: 'running' }),
    });
    const runId = ((await res.json()) as { id: string }).id;
    const fields = { type: 'screenshot', runId, projectId: auth.projectId };
    const headers = { 'Idempotency-Key': 'upload-1' };
    const artifacts = join(dataDir, 'artifacts');

    let stall: () => void = () => {};
    async function* halfAFile() {
      yield png();
      yield Buffer.alloc(256 * 1024, 1);
      await new Promise<void>((resolve) => (stall = resolve));
    }
    const first = upload(target(server.url), { auth: auth.apiKey, fields, fileName: 'shot.png', content: halfAFile(), headers }).catch((e: unknown) => e);
    await expect.poll(() => filesUnder(artifacts).some((f) => f.includes('.tmp-')), { timeout: 10_000 }).toBe(true);
    await server.crash();
    stall();
    expect(await first).toBeInstanceOf(Error);

    server = await startServerProcess(dataDir);
    const again = await upload(target(server.url), { auth: auth.apiKey, fields, fileName: 'shot.png', content: png(), headers });
    expect(again.status).toBe(201);
    const replay = await upload(target(server.url), { auth: auth.apiKey, fields, fileName: 'shot.png', content: png(), headers });
    expect(replay.status).toBe(201);
    expect(replay.body.id).toBe(again.body.id);
    await server.stop();
    server = undefined;

    expect(filesUnder(artifacts).map((f) => f.slice(f.lastIndexOf('/') + 1))).toEqual([again.body.id]);
    const db = new Database(join(dataDir, 'testreport.db'), { readonly: true });
    try {
      expect(db.prepare('select id from artifacts where run_id = ?').all(runId)).toEqual([{ id: again.body.id }]);
    } finally {
      db.close();
    }
  }, 60_000);
});
