import { describe, expect, it } from 'vitest';
import { chunk, runBatches, taskPool } from './bulk.js';
import { paginate, type Page } from './pagination.js';

describe('paginate', () => {
  it('walks pages until total and passes limit/offset on', async () => {
    const rows = Array.from({ length: 7 }, (_, i) => i);
    const asked: Array<{ limit: unknown; offset: unknown }> = [];
    const fetchPage = async (q: { limit?: unknown; offset?: unknown }): Promise<Page<number>> => {
      asked.push({ limit: q.limit, offset: q.offset });
      const offset = Number(q.offset);
      return { data: rows.slice(offset, offset + Number(q.limit)), total: rows.length, limit: Number(q.limit), offset };
    };
    const seen: number[] = [];
    for await (const r of paginate(fetchPage, { limit: 3 })) seen.push(r);
    expect(seen).toEqual(rows);
    expect(asked).toEqual([{ limit: 3, offset: 0 }, { limit: 3, offset: 3 }, { limit: 3, offset: 6 }]);
  });

  it('ends even when rows keep arriving faster than it reads', async () => {
    let total = 4;
    const fetchPage = async (q: { limit?: unknown; offset?: unknown }): Promise<Page<number>> => {
      total += 10;
      return { data: [Number(q.offset), Number(q.offset) + 1], total, limit: 2, offset: Number(q.offset) };
    };
    const seen: number[] = [];
    for await (const r of paginate(fetchPage, { limit: 2 })) seen.push(r);
    expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
  });
});

describe('bulk helpers', () => {
  it('chunks and refuses a bad batch size', () => {
    expect(chunk([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(() => chunk([1], 0)).toThrow(RangeError);
  });

  it('keeps at most `concurrency` batches in flight and returns results in input order', async () => {
    let inFlight = 0;
    let most = 0;
    const out = await runBatches(chunk([...Array(10).keys()], 1), 3, async (batch, i) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((r) => setTimeout(r, (10 - i) * 2));
      inFlight--;
      return batch.map((x) => x * 10);
    });
    expect(out).toEqual([0, 10, 20, 30, 40, 50, 60, 70, 80, 90]);
    expect(most).toBe(3);
  });

  it('a task pool bounds work that arrives over time, counts it, and drains it', async () => {
    const pool = taskPool(2);
    let inFlight = 0;
    let most = 0;
    const done: number[] = [];
    const task = (i: number) => async () => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((r) => setTimeout(r, 5));
      inFlight--;
      if (i === 3) throw new Error('task 3 fails');
      done.push(i);
      return i;
    };
    const first = pool.run(task(0));
    for (let i = 1; i < 5; i++) void pool.run(task(i)).catch(() => {});
    expect(pool.pending).toBe(5);
    await pool.settled();
    expect(pool.pending).toBeLessThan(5);
    await pool.drain();
    expect(await first).toBe(0);
    expect(pool.pending).toBe(0);
    expect(most).toBe(2);
    expect(done.sort()).toEqual([0, 1, 2, 4]);
  });
});
