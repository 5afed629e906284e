import { join } from 'node:path';
import Database from 'better-sqlite3';
import { filesUnder, png, upload, type TestServer } from '@testreport/server/testing';
import { describe, expect, it } from 'vitest';
import { startServerProcess, useCrashDataDir, type ServerProcess } from './serverProcess.js';

/**
 * Issue 15.1, upload half: a server killed with SIGKILL while an upload with an Idempotency-Key is
 * streaming in. After the restart the same upload with the same key must be stored, once, and the
 * partial file of the killed attempt must be gone.
 */
const f = useCrashDataDir('crash-upload-');

const target = (url: string) => ({ baseUrl: `${url}/api/v1` }) as TestServer;

describe('crash safety of idempotent uploads (real binary, kill -9)', () => {
  it('stores an upload re-sent with its key after the server died mid-file, once, with no partial file left', async () => {
    f.server = await startServerProcess(f.dataDir);
    const res = await fetch(`${f.server.url}/api/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': f.auth.apiKey },
      body: JSON.stringify({ projectId: f.auth.projectId, status: 'running' }),
    });
    const runId = ((await res.json()) as { id: string }).id;
    const fields = { type: 'screenshot', runId, projectId: f.auth.projectId };
    const headers = { 'Idempotency-Key': 'upload-1' };
    const artifacts = join(f.dataDir, 'artifacts');

    let stall: () => void = () => {};
    async function* halfAFile() {
      yield png();
      yield Buffer.alloc(256 * 1024, 1);
      await new Promise<void>((resolve) => (stall = resolve));
    }
    const first = upload(target(f.server.url), { auth: f.auth.apiKey, fields, fileName: 'shot.png', content: halfAFile(), headers }).catch((e: unknown) => e);
    await expect.poll(() => filesUnder(artifacts).some((f) => f.includes('.tmp-')), { timeout: 10_000 }).toBe(true);
    await f.server.crash();
    stall();
    expect(await first).toBeInstanceOf(Error);

    f.server = await startServerProcess(f.dataDir);
    const again = await upload(target(f.server.url), { auth: f.auth.apiKey, fields, fileName: 'shot.png', content: png(), headers });
    expect(again.status).toBe(201);
    const replay = await upload(target(f.server.url), { auth: f.auth.apiKey, fields, fileName: 'shot.png', content: png(), headers });
    expect(replay.status).toBe(201);
    expect(replay.body.id).toBe(again.body.id);
    await f.server.stop();
    f.server = undefined;

    expect(filesUnder(artifacts).map((f) => f.slice(f.lastIndexOf('/') + 1))).toEqual([again.body.id]);
    const db = new Database(join(f.dataDir, 'testreport.db'), { readonly: true });
    try {
      expect(db.prepare('select id from artifacts where run_id = ?').all(runId)).toEqual([{ id: again.body.id }]);
    } finally {
      db.close();
    }
  }, 60_000);
});
