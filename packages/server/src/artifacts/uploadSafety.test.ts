import { mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../lib/ids.js';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { filesUnder, insertRun, png, upload } from '../testing/artifacts.js';

let t: TestServer;
let run: Awaited<ReturnType<typeof insertRun>>;
beforeAll(async () => {
  t = await startTestServer();
  run = await insertRun(t);
});
afterAll(async () => {
  await t?.close();
});

const fields = () => ({ type: 'screenshot', runId: run.id, projectId: t.projectId });
const artifactRows = () => t.server.services.deps.db.selectFrom('artifacts').selectAll().where('run_id', '=', run.id).execute();

/** Descriptors this process holds open on files under `dir` (the server runs in-process). */
const openFilesUnder = (dir: string) =>
  readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).startsWith(dir);
    } catch {
      return false;
    }
  });

describe('idempotent uploads compare the file (15.7)', () => {
  it('replays the same file for a used key, and refuses a different file with 409', async () => {
    const headers = { 'Idempotency-Key': `up-${newId()}` };
    const a = png();
    const first = await upload(t, { auth: t.apiKey, fields: fields(), fileName: 'a.png', content: a, headers });
    expect(first.status).toBe(201);
    const before = filesUnder(join(t.dataDir, 'artifacts')).length;

    const same = await upload(t, { auth: t.apiKey, fields: fields(), fileName: 'a.png', content: a, headers });
    expect(same.status).toBe(201);
    expect(same.headers.get('idempotent-replayed')).toBe('true');
    expect(same.body.id).toBe(first.body.id);

    const other = await upload(t, { auth: t.apiKey, fields: fields(), fileName: 'a.png', content: Buffer.concat([png(), Buffer.from('another file')]), headers });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('CONFLICT');

    expect((await artifactRows()).filter((r) => r.file_name === 'a.png')).toHaveLength(1);
    expect(filesUnder(join(t.dataDir, 'artifacts')).length).toBe(before);
  });
});

describe('aborted uploads leave nothing behind (15.3)', () => {
  it('removes the partial file and closes its descriptor for 20 client disconnects', async () => {
    const dir = join(t.dataDir, 'artifacts');
    const rowsBefore = (await artifactRows()).length;
    for (let i = 0; i < 20; i++) {
      const abort = new AbortController();
      let stall: () => void = () => {};
      async function* halfAFile() {
        yield png();
        yield Buffer.alloc(64 * 1024, 1);
        // The client stops sending here and then goes away.
        await new Promise<void>((resolve) => (stall = resolve));
      }
      const sent = upload(t, { auth: t.apiKey, fields: fields(), fileName: `gone-${i}.png`, content: halfAFile(), signal: abort.signal }).catch((e: unknown) => e);
      await expect.poll(() => filesUnder(dir).some((f) => f.includes('.tmp-')), { timeout: 10_000 }).toBe(true);
      abort.abort();
      stall();
      expect(await sent).toBeInstanceOf(Error);
      await expect.poll(() => filesUnder(dir).filter((f) => f.includes('.tmp-')), { timeout: 10_000 }).toEqual([]);
    }
    await expect.poll(() => openFilesUnder(dir), { timeout: 10_000 }).toEqual([]);
    expect((await artifactRows()).length).toBe(rowsBefore);
  });

  it('sweeps partial files and files no artifact names at start-up, and keeps stored artifacts', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'testreport-sweep-'));
    const dataDir = join(parent, 'data');
    try {
      const first = await startTestServer({ dataDir });
      const r = await insertRun(first);
      const kept = await upload(first, { auth: first.apiKey, fields: { type: 'screenshot', runId: r.id, projectId: first.projectId }, fileName: 'kept.png', content: png() });
      expect(kept.status).toBe(201);
      await first.server.close();

      const runDir = join(dataDir, 'artifacts', 'projects', first.projectId, 'runs', r.id);
      writeFileSync(join(runDir, `.tmp-${newId()}`), 'partial');
      writeFileSync(join(runDir, newId()), 'stored, but its row never committed');
      mkdirSync(join(dataDir, 'artifacts', 'projects', first.projectId, 'runs', newId()), { recursive: true });

      // The same database as the first server (on PostgreSQL the harness would make a new one).
      const second = await startTestServer({ dataDir, databaseUrl: first.server.config.databaseUrl });
      try {
        const left = filesUnder(join(dataDir, 'artifacts'));
        expect(left).toEqual([join(runDir, kept.body.id)]);
      } finally {
        await second.server.close();
        // Its server is already stopped: this drops the database the harness made for it on PostgreSQL.
        await first.close();
      }
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });
});
