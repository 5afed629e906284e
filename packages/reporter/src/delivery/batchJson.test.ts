import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SpoolWriter } from '../spool.js';
import { batchJson } from './engine.js';

// The live reporter serialises each result once and builds its spool line and its request from
// those strings; a replay of the spool serialises the parsed bodies again. Both must give the bytes
// JSON.stringify gives for the objects, or a replayed batch would not match its Idempotency-Key.
const run = { runId: '0192-run "quoted"', projectId: 'proj\\1' };
const bodies = [
  { title: 'case 0', fullTitle: 'area > case 0', status: 'passed', duration: 5, steps: [{ title: 'click', category: 'action', duration: 1 }] },
  { title: 'ünïcödé "quotes" \\ and\nnewlines 😀', fullTitle: 'x', status: 'failed', duration: 0, error: { message: 'Error: \u0000\u001f' }, tags: [], annotations: [] },
  {},
];

describe('batchJson', () => {
  it('writes what JSON.stringify writes for the run ids first, then each body', () => {
    const expected = JSON.stringify({ tests: bodies.map((b) => ({ ...run, ...b, ...run })) });
    expect(batchJson(run, bodies.map((b) => JSON.stringify(b)), true)).toBe(expected);
  });

  it('puts the run ids last for spools written before they went first', () => {
    const expected = JSON.stringify({ tests: bodies.map((b) => ({ ...b, ...run })) });
    expect(batchJson(run, bodies.map((b) => JSON.stringify(b)), false)).toBe(expected);
  });

  it('reads back as the same results after a spool round trip', () => {
    const json = bodies.map((b) => JSON.stringify(JSON.parse(JSON.stringify(b))));
    expect(JSON.parse(batchJson(run, json, true))).toEqual({ tests: bodies.map((b) => ({ ...b, ...run })) });
  });
});

describe('SpoolWriter.writeBatch', () => {
  it('writes the line write() would write for the same batch record', () => {
    const dir = mkdtempSync(join(tmpdir(), 'spool-batch-'));
    try {
      const tests = bodies.map((body, i) => ({ cid: `c-${i}`, body }));
      const a = new SpoolWriter(join(dir, 'a'), 'run-a');
      a.writeBatch('batch "1"', tests.map((t) => ({ cid: t.cid, json: JSON.stringify(t.body) })));
      a.close();
      const b = new SpoolWriter(join(dir, 'b'), 'run-b');
      b.write({ t: 'batch', cid: 'batch "1"', tests: tests as never });
      b.close();
      expect(readFileSync(a.file, 'utf8')).toBe(readFileSync(b.file, 'utf8'));
      expect(JSON.parse(readFileSync(a.file, 'utf8'))).toEqual({ t: 'batch', cid: 'batch "1"', tests });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
