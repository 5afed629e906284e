// The test page of a test with 10 tries × 20 attachments (issue 24): time to first byte and the
// compressed bytes of the page, against the budget (≤ 300 ms server time, ≤ 150 KB over the wire;
// images load lazily, so they are not part of the page's weight). Run: node bench/testPage.mjs
// [--db postgres]. Uses the built server (npm run build).
import { openBenchDatabase } from './lib/database.mjs';
import { measurePage, signIn } from './pages.mjs';
import { initDataDir, removeDir, startServer, tempDir } from './lib/server.mjs';

const TRIES = 10;
const FILES_PER_TRY = 20;
const SAMPLES = 30;
const TTFB_TARGET_MS = 300;
const BYTES_TARGET = 150 * 1024;
// A 1×1 PNG: the server checks that a screenshot is an image.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

/** A try as the reporter sends it: two errors with snippets, 30 steps with locations, output, the page snapshot. */
function attempt(retry) {
  const snippet = ['  10 |   await page.goto("/cart");', '  11 |   await page.getByRole("button", { name: "Add" }).click();', `> 12 |   await expect(page.getByTestId("count")).toHaveText("${retry}");`, '     |                                           ^', '  13 | });'].join('\n');
  const error = (n) => ({
    message: `Error: expect(locator).toHaveText(expected) failed\n\nExpected: "${retry}"\nReceived: "${n}"\nTimeout: 5000ms`,
    stack: `Error: expect(locator).toHaveText(expected) failed\n    at /repo/tests/cart.spec.ts:12:${40 + n}`,
    location: { file: 'tests/cart.spec.ts', line: 12, column: 40 + n },
    snippet,
  });
  const steps = Array.from({ length: 30 }, (_, i) => ({ title: `locator.click(button ${i})`, category: 'action', duration: 12, location: { file: 'tests/cart.spec.ts', line: 10 + (i % 5), column: 3 } }));
  return {
    retry, status: retry === TRIES - 1 ? 'passed' : 'failed', duration: 1500, startedAt: new Date().toISOString(),
    errors: retry === TRIES - 1 ? [] : [error(1), error(2)], steps,
    stdout: `try ${retry}\n`.repeat(100),
    attachments: [{ name: 'error-context', contentType: 'text/markdown', body: '# Page snapshot\n\n```yaml\n' + '- listitem: "Product with a long name"\n'.repeat(100) + '```\n' }],
  };
}

async function main() {
  const dbKind = process.argv.includes('--db') ? process.argv[process.argv.indexOf('--db') + 1] : 'sqlite';
  const dataDir = tempDir('testpage');
  const db = await openBenchDatabase(dbKind, dataDir);
  try {
    const { projectId, apiKey } = initDataDir(dataDir, db);
    const server = await startServer(dataDir, { db });
    try {
      const api = async (method, path, body) => {
        const res = await fetch(`${server.url}/api/v1${path}`, { method, headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body: body && JSON.stringify(body) });
        if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${await res.text()}`);
        return res.json();
      };
      const run = await api('POST', '/runs', { projectId, status: 'running', branch: 'main' });
      const test = await api('POST', '/tests', {
        runId: run.id, projectId, title: 'adds items', fullTitle: 'cart > adds items', filePath: 'tests/cart.spec.ts', lineNumber: 3,
        status: 'flaky', duration: 1500, retries: TRIES - 1, attempt: TRIES, isFlaky: true,
        attempts: Array.from({ length: TRIES }, (_, i) => attempt(i)),
      });
      for (let retry = 0; retry < TRIES; retry++) {
        for (let f = 0; f < FILES_PER_TRY; f++) {
          const form = new FormData();
          for (const [k, v] of Object.entries({ type: 'screenshot', runId: run.id, projectId, testId: test.id, retry: String(retry) })) form.append(k, v);
          // Every fourth file a snapshot comparison, so the page holds viewers too.
          const name = f % 4 === 0 ? `shot${f}-${['expected', 'actual', 'diff'][f % 3]}.png` : `screenshot-${f}.png`;
          form.append('file', new Blob([PNG], { type: 'image/png' }), name);
          const res = await fetch(`${server.url}/api/v1/upload`, { method: 'POST', headers: { 'x-api-key': apiKey }, body: form });
          if (res.status !== 201) throw new Error(`upload → ${res.status} ${await res.text()}`);
        }
      }
      const cookie = await signIn(server.url);
      const r = await measurePage(`${server.url}/tests/${test.id}`, cookie, SAMPLES);
      const meets = r.ttfbP50 <= TTFB_TARGET_MS && r.compressedBytes <= BYTES_TARGET;
      console.log(`test page (${TRIES} tries × ${FILES_PER_TRY} attachments, ${dbKind}): TTFB p50 ${r.ttfbP50.toFixed(0)} ms, p99 ${r.ttfbP99.toFixed(0)} ms, ${(r.compressedBytes / 1024).toFixed(1)} KB ${r.encoding} (targets ≤ ${TTFB_TARGET_MS} ms, ≤ 150 KB: ${meets ? 'meets target' : 'misses target'})`);
    } finally {
      await server.stop();
    }
  } finally {
    await db.close?.();
    removeDir(dataDir);
  }
}

await main();
