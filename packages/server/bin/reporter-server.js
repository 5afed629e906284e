#!/usr/bin/env node
// Committed (not built) so that `npm install` on a fresh clone links `reporter-server`: npm skips a
// workspace bin whose file does not exist yet, and dist/ is only built afterwards by `prepare`.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/bin.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('reporter-server: @testreport/server is not built yet: run `npm run build` at the repository root\n');
  process.exit(1);
}
// `serve` goes straight to its own thread (src/serveThread.ts) without loading the server here
// first: dist/bin.js does the same when started directly, after a parse of the whole server.
const thread = process.argv[2] === 'serve' ? await import('../dist/serveThread.js') : undefined;
if (thread && !thread.youngGenerationSetByOperator()) thread.serveInWorker(entry);
else await import(entry.href);
