import { rmSync, truncateSync, writeFileSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { TestReportClient } from '../index.js';
import { validKey } from '../testing/mockApi.js';

// The point of streaming: a 150 MB report goes out without the SDK holding it. A plain HTTP sink
// counts the bytes; the SDK's buffer memory must stay far below the file's size. (undici's fetch,
// the first transport tried, held every chunk of a streamed body until the request ended.)
it('uploads a 150 MB file from a path without holding it in memory', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sdk-mem-'));
  const path = join(dir, 'report.zip');
  const size = 150 * 1024 * 1024;
  writeFileSync(path, '');
  truncateSync(path, size); // sparse: no disk space, still read byte by byte
  let received = 0;
  const sink = createServer((req, res) => {
    req.on('data', (c: Buffer) => (received += c.length));
    req.on('end', () => res.end(JSON.stringify({ id: 'a', received })));
  }).listen(0, '127.0.0.1');
  await new Promise((r) => sink.once('listening', r));
  let peak = 0;
  const start = process.memoryUsage().arrayBuffers;
  const sample = setInterval(() => (peak = Math.max(peak, process.memoryUsage().arrayBuffers - start)), 5);
  try {
    const client = new TestReportClient({ url: `http://127.0.0.1:${(sink.address() as AddressInfo).port}`, apiKey: validKey() });
    await client.artifacts.upload({ file: path, type: 'report', runId: 'r', projectId: 'p' });
  } finally {
    clearInterval(sample);
    sink.close();
    rmSync(dir, { recursive: true, force: true });
  }
  expect(received).toBeGreaterThan(size);
  // Garbage not yet collected counts too, hence a loose bound; holding the file would exceed it.
  expect(peak).toBeLessThan(size / 2);
}, 60_000);
