import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, readSync, rmSync, statSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ServerError, TestReportClient } from '@testreport/client';
import { jpeg } from '@testreport/server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../cli/helpers.js';
import { assertServerBuilt, initDataDir, startServerProcess, type ServerProcess } from '../crash/serverProcess.js';

// Issue 26: the data dir's disk filled up during batches and uploads. Uploads were answered 400
// "Malformed multipart body: ENOSPC" (a client error: dropped, never retried), batches a bare 500,
// /healthz stayed 200, and the SQLite checkpoint thread died on SQLITE_FULL and never came back.
// Here the data dir is a small tmpfs of its own that a ballast file fills while clients send.

const TMPFS_SIZE = '24m';
const OUTPUT = 'x'.repeat(3_000);

let mountPoint: string;
let mounted = false;
let dataDir: string;
let server: ServerProcess;
let auth: { projectId: string; apiKey: string };
/** The server's warnings: shown when the test fails. */
let serverLog = '';

beforeAll(async () => {
  assertServerBuilt();
  mountPoint = tempDir('testreport-disk-full-');
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${TMPFS_SIZE}`, 'tmpfs', mountPoint], { stdio: 'pipe' });
  } catch (err) {
    throw new Error(`this test needs a small tmpfs as the data dir: \`mount -t tmpfs\` failed (run it as root, or in a container with CAP_SYS_ADMIN): ${(err as Error).message}`);
  }
  mounted = true;
  dataDir = join(mountPoint, 'data');
  auth = initDataDir(dataDir);
  server = await startServerProcess(dataDir, { TESTREPORT_LOG: 'warn' });
  server.child.stderr!.on('data', (d) => (serverLog += d));
}, 60_000);

afterAll(async () => {
  await server?.stop();
  if (mounted) execFileSync('umount', [mountPoint]);
  if (mountPoint) rmSync(mountPoint, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Writes a file until the disk refuses more: big chunks first, then small ones for the last pages. */
async function fillDisk(file: string): Promise<void> {
  const handle = await open(file, 'w');
  try {
    for (const size of [1024 * 1024, 64 * 1024, 4096, 512]) {
      const chunk = Buffer.alloc(size, 1);
      for (;;) {
        try {
          await handle.write(chunk);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOSPC') break;
          throw err;
        }
      }
    }
  } finally {
    await handle.close().catch(() => {});
  }
}

/** The WAL header's checkpoint sequence number: it moves on each time a checkpoint lets the WAL start over. */
function walSequence(dbFile: string): number {
  const fd = openSync(`${dbFile}-wal`, 'r');
  try {
    const header = Buffer.alloc(16);
    readSync(fd, header, 0, 16, 0);
    return header.readUInt32BE(12);
  } finally {
    closeSync(fd);
  }
}

type Batch = { key: string; titles: string[] };
type Outcome = { what: 'batch' | 'upload'; status: number; code?: string; retryAfter?: string | null };

describe('the data dir\'s disk fills up during batches and uploads', () => {
  it('answers 507/503 with Retry-After, loses nothing acknowledged, names the full disk on /healthz, and recovers without a restart', async () => {
    const dbFile = join(dataDir, 'testreport.db');
    const client = new TestReportClient({ url: server.url, apiKey: auth.apiKey });
    // The outage answers themselves are under test: no retries here.
    const once = new TestReportClient({ url: server.url, apiKey: auth.apiKey, maxRetries: 0 });
    const run = await client.runs.create({ projectId: auth.projectId, status: 'running' });
    let n = 0;
    const batchOf = (size: number): Batch => {
      const k = ++n;
      return { key: `batch-${k}`, titles: Array.from({ length: size }, (_, i) => `batch ${k} > test ${i}`) };
    };
    const send = (c: TestReportClient, b: Batch) =>
      c.tests.createBatch(
        b.titles.map((t) => ({ runId: run.id, projectId: auth.projectId, title: t, fullTitle: t, filePath: 'disk.spec.ts', status: 'passed' as const, duration: 1, stdout: OUTPUT })),
        { idempotencyKey: b.key },
      );
    const acknowledged: string[] = [];
    const uploaded: string[] = [];
    let u = 0;
    const uploadOne = async (c: TestReportClient) => {
      const fileName = `shot-${++u}.jpg`;
      await c.artifacts.upload({ runId: run.id, projectId: auth.projectId, file: jpeg(200_000), fileName, type: 'screenshot' });
      return fileName;
    };

    // Before: large batches, so the WAL file has room that commits reuse after each checkpoint.
    for (let i = 0; i < 5; i++) {
      const b = batchOf(100);
      await send(client, b);
      acknowledged.push(...b.titles);
    }
    uploaded.push(await uploadOne(client));
    await sleep(500);

    // During: batches and uploads keep coming while a ballast file takes the rest of the disk.
    const outcomes: Outcome[] = [];
    const failed: Batch[] = [];
    let failedUploads = 0;
    let filling = true;
    const record = (what: Outcome['what'], e: unknown) => {
      const err = e as ServerError;
      outcomes.push({ what, status: err.status, code: err.code, retryAfter: err.headers?.get('retry-after') });
    };
    const traffic = (async () => {
      while (filling) {
        // Enough refusals of each kind seen: keep the disk full without piling up more to resend than
        // the freed disk holds (on a slow machine filling it takes many rounds).
        if (failed.length >= 4 && failedUploads >= 4) {
          await sleep(50);
          continue;
        }
        const b = batchOf(30);
        await send(once, b).then(
          () => acknowledged.push(...b.titles),
          (e) => (record('batch', e), failed.push(b)),
        );
        await uploadOne(once).then(
          (name) => uploaded.push(name),
          (e) => (record('upload', e), failedUploads++),
        );
        await sleep(50);
      }
    })();
    const ballast = join(dataDir, 'ballast');
    await fillDisk(ballast);
    // A few more rounds against the full disk, then one of each that surely cannot fit.
    await sleep(3_000);
    filling = false;
    await traffic;
    const big = batchOf(200);
    await send(once, big).then(() => acknowledged.push(...big.titles), (e) => (record('batch', e), failed.push(big)));
    await uploadOne(once).then((name) => uploaded.push(name), (e) => (record('upload', e), failedUploads++));

    // Every refusal was an outage answer with Retry-After — never a 400 or a bare 500.
    expect(outcomes.filter((o) => o.what === 'batch').length).toBeGreaterThan(0);
    expect(outcomes.filter((o) => o.what === 'upload').length).toBeGreaterThan(0);
    for (const o of outcomes) {
      expect([507, 503]).toContain(o.status);
      expect(o.code).toBe(o.status === 507 ? 'INSUFFICIENT_STORAGE' : 'SERVICE_UNAVAILABLE');
      expect(Number(o.retryAfter)).toBeGreaterThan(0);
    }
    expect(outcomes.some((o) => o.what === 'upload' && o.status === 507)).toBe(true);
    expect(outcomes.some((o) => o.what === 'batch' && o.status === 507)).toBe(true);

    // /healthz names the full disk while it lasts; the server process is the same one.
    const full = await fetch(`${server.url}/healthz`);
    expect(full.status).toBe(503);
    expect(await full.json()).toMatchObject({ status: 'unavailable', disk: 'full' });
    expect(server.child.exitCode).toBeNull();

    // Space is freed: the same process takes the refused requests again, as the SDK would resend them.
    await rm(ballast);
    const healthy = await fetch(`${server.url}/healthz`);
    expect(healthy.status).toBe(200);
    expect(await healthy.json()).toMatchObject({ status: 'ok', disk: 'ok' });
    for (const b of failed) {
      await send(client, b);
      acknowledged.push(...b.titles);
    }
    for (let i = 0; i < failedUploads; i++) uploaded.push(await uploadOne(client));

    // The checkpoint thread survived the full disk: checkpoints move new pages into the database
    // file and let the WAL start over, which SQLite's own fallback would do only after 40 MB.
    const sequence = walSequence(dbFile);
    const size = statSync(dbFile).size;
    // The WAL starts over at the first write after a complete checkpoint: keep writing a little.
    const deadline = Date.now() + 15_000;
    while ((walSequence(dbFile) === sequence || statSync(dbFile).size <= size) && Date.now() < deadline) {
      const b = batchOf(50);
      await send(client, b);
      acknowledged.push(...b.titles);
      await sleep(300);
    }
    expect(walSequence(dbFile), serverLog).not.toBe(sequence);
    expect(statSync(dbFile).size).toBeGreaterThan(size);
    // A WAL that grew while checkpoints could not run gives its space back: the checkpoint thread
    // started again after its failure truncates it (journal_size_limit alone keeps up to 64 MiB).
    expect(statSync(`${dbFile}-wal`).size).toBeLessThan(5 * 1024 * 1024);

    // Nothing acknowledged is lost, nothing is stored twice, and every stored upload has its file.
    const db = new Database(dbFile, { readonly: true });
    try {
      const rows = db.prepare('select full_title as t, count(*) as n from tests where run_id = ? group by full_title').all(run.id) as { t: string; n: number }[];
      expect(rows.filter((r) => r.n !== 1)).toEqual([]);
      expect(rows.map((r) => r.t).sort()).toEqual([...acknowledged].sort());
      const artifacts = db.prepare('select file_name, file_size, storage_key from artifacts where run_id = ?').all(run.id) as { file_name: string; file_size: number; storage_key: string }[];
      expect(artifacts.map((a) => a.file_name).sort()).toEqual([...uploaded].sort());
      for (const a of artifacts) expect(statSync(join(dataDir, 'artifacts', a.storage_key)).size).toBe(a.file_size);
    } finally {
      db.close();
    }
    // No partial upload is left in the store.
    const runDir = join(dataDir, 'artifacts', 'projects', auth.projectId, 'runs', run.id);
    expect(existsSync(runDir)).toBe(true);
    expect(readdirSync(runDir).filter((f) => f.startsWith('.tmp-'))).toEqual([]);
  }, 180_000);
});
