import { spawnSync } from 'node:child_process';
import { createWriteStream, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, cli, tempDir } from './helpers.js';

/** Heap small enough that holding the report (or its parse tree) at once cannot fit. */
const HEAP_MB = 48;

/** A Playwright JSON report of `specs` tests, written as a stream (the test itself never holds it). */
async function writeBigReport(file: string, specs: number): Promise<void> {
  const out = createWriteStream(file);
  out.write('{"config":{"version":"1.65.1","projects":[{"name":"chromium"}]},"suites":[{"title":"big.spec.ts","file":"big.spec.ts","specs":[');
  const output = 'x'.repeat(400);
  for (let i = 0; i < specs; i++) {
    const spec = {
      title: `test ${i}`, file: 'big.spec.ts', line: i, tags: [],
      tests: [{ projectName: 'chromium', status: i % 10 === 0 ? 'unexpected' : 'expected', annotations: [], results: [{ retry: 0, status: 'passed', duration: 5, stdout: [{ text: output }], stderr: [], attachments: [], steps: [] }] }],
    };
    if (!out.write((i ? ',' : '') + JSON.stringify(spec))) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  out.end(']}],"errors":[]}');
  await new Promise<void>((r) => out.on('finish', () => r()));
}

describe('reporter upload streams the report', () => {
  let dir: string;
  let file: string;
  beforeAll(async () => {
    assertBuilt();
    dir = tempDir('big-');
    file = join(dir, 'report.json');
    await writeBigReport(file, 100_000);
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(`reads a 65 MB report in a ${HEAP_MB} MB heap, where JSON.parse of it cannot`, async () => {
    // The control: loading the same file whole runs out of memory under the same limit.
    const whole = spawnSync(process.execPath, [`--max-old-space-size=${HEAP_MB}`, '-e', `JSON.parse(require('fs').readFileSync(${JSON.stringify(file)}, 'utf8'))`], { encoding: 'utf8' });
    expect(whole.status).not.toBe(0);
    expect(whole.stderr).toMatch(/heap out of memory|Allocation failed/i);

    const res = await cli(['upload', file, '--dry-run', '--json'], { NODE_OPTIONS: `--max-old-space-size=${HEAP_MB}`, TESTREPORT_CONFIG_DIR: dir });
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.json.run).toMatchObject({ totalTests: 100_000, failedTests: 10_000, passedTests: 90_000 });
    expect(res.json.batches).toBe(200);
  }, 300_000);
});
