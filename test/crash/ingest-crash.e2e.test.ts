import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { startServerProcess, useCrashDataDir, type ServerProcess } from './serverProcess.js';

/**
 * Issue 15.1: a server killed with SIGKILL mid-ingestion, restarted on the same data dir, and every
 * unacknowledged request re-sent with its Idempotency-Key: every test must be stored exactly once.
 */
// At most 2 + IN_FLIGHT batches are acknowledged per crash cycle, so some are always left for the re-send after the last restart.
const BATCHES = 60;
const PER_BATCH = 200;
const IN_FLIGHT = 8;

interface Pending {
  key: string;
  body: string;
}

const f = useCrashDataDir('crash-');

async function post(url: string, path: string, body: string, key: string) {
  const res = await fetch(`${url}/api/v1${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': f.auth.apiKey, 'idempotency-key': key },
    body,
  });
  return { status: res.status, body: (await res.json()) as any };
}

/**
 * Sends `pending` with a few requests in flight; `onAck` may crash the server, and no request is
 * started once `stopped()`. Returns the keys acknowledged with 201; everything else (connection
 * reset, 409, 5xx, not sent) stays pending.
 */
async function sendAll(url: string, pending: Pending[], onAck: (acked: number) => Promise<void>, stopped = () => false): Promise<{ acked: Set<string>; refused: string[] }> {
  const acked = new Set<string>();
  const refused: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < pending.length && !stopped()) {
      const p = pending[next++]!;
      try {
        const r = await post(url, '/tests/batch', p.body, p.key);
        if (r.status === 201) {
          acked.add(p.key);
          await onAck(acked.size);
        } else refused.push(`${r.status} ${JSON.stringify(r.body)}`);
      } catch {
        // The connection died with the server: unacknowledged, re-sent after the restart.
      }
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return { acked, refused };
}

describe('crash safety of idempotent ingestion (real binary, kill -9)', () => {
  it('stores every test exactly once after kills mid-ingestion and re-sends with the same keys', async () => {
    f.server = await startServerProcess(f.dataDir);
    const run = await post(f.server.url, '/runs', JSON.stringify({ projectId: f.auth.projectId, status: 'running' }), 'run-1');
    expect(run.status).toBe(201);
    const runId = run.body.id as string;

    let pending: Pending[] = Array.from({ length: BATCHES }, (_, b) => ({
      key: `batch-${b}`,
      body: JSON.stringify({
        tests: Array.from({ length: PER_BATCH }, (_, i) => ({
          runId, projectId: f.auth.projectId, title: `t${i}`, fullTitle: `batch ${b} > t${i}`, filePath: `tests/b${b}.spec.ts`, status: 'passed', duration: 5,
        })),
      }),
    }));

    // Five crash cycles, each killing the server a few acknowledgements into what is left.
    for (let cycle = 0; cycle < 5; cycle++) {
      const current = f.server;
      let killed = false;
      const { acked } = await sendAll(current.url, pending, async (n) => {
        // A random moment a little after an acknowledgement, so kills land anywhere in a request.
        if (n === 2 && !killed) {
          killed = true;
          await new Promise((r) => setTimeout(r, Math.random() * 40));
          await current.crash();
        }
      }, () => killed);
      await current.crash();
      pending = pending.filter((p) => !acked.has(p.key));
      f.server = await startServerProcess(f.dataDir);
    }

    // After the last restart every unacknowledged request is re-sent once with its own key.
    expect(pending.length).toBeGreaterThan(0);
    const { refused } = await sendAll(f.server.url, pending, async () => {});
    expect(refused).toEqual([]);
    await f.server.stop();
    f.server = undefined;

    const db = new Database(join(f.dataDir, 'testreport.db'), { readonly: true });
    try {
      const total = db.prepare('select count(*) as n from tests where run_id = ?').get(runId) as { n: number };
      const dupes = db.prepare('select count(*) as n from (select full_title from tests where run_id = ? group by full_title having count(*) > 1)').get(runId) as { n: number };
      expect(dupes.n).toBe(0);
      expect(total.n).toBe(BATCHES * PER_BATCH);
    } finally {
      db.close();
    }
  }, 120_000);
});
