#!/usr/bin/env node
// Committed (not built) so that `npm install` on a fresh clone links `reporter`: npm skips a
// workspace bin whose file does not exist yet, and dist/ is only built afterwards by `prepare`.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/bin.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('reporter: @testreport/cli is not built yet: run `npm run build` at the repository root\n');
  process.exit(1);
}
await import(entry.href);
