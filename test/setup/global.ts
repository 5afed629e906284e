import { CHROMIUM_HINT, findChromium } from './chromium.mjs';

// The reporter, CLI and pack tests run real Playwright in Chromium. Without one they would fail
// far from the cause ("expected ['trace','trace'] to include 'screenshot'"): stop before any test
// runs, with the one line that says what to install.
export default function setup(): void {
  if (findChromium()) return;
  process.stderr.write(`\nerror: ${CHROMIUM_HINT}\n\n`);
  process.exit(1);
}
