// Where the browser tests find Chromium: the one lookup shared by vitest's global set-up, the
// Playwright configs under test/**/fixtures and examples/, and `npm run demo`.
// Plain JavaScript so that demo.mjs (run by node itself) can import it as well as the TS configs.
import { existsSync } from 'node:fs';
import { chromium } from '@playwright/test';

export const CHROMIUM_HINT =
  'no Chromium for the browser tests: install it once with `sudo apt-get install chromium` (Debian/Ubuntu) or `npx playwright install chromium`, or set CHROMIUM_PATH';

/**
 * CHROMIUM_PATH when set (and only it, so a typo is not silently replaced), else Debian's
 * /usr/bin/chromium, else the browser `npx playwright install chromium` downloads; undefined when
 * none of them exists.
 */
export function findChromium() {
  const candidates = process.env.CHROMIUM_PATH ? [process.env.CHROMIUM_PATH] : ['/usr/bin/chromium', playwrightsOwn()];
  return candidates.find((path) => path !== undefined && existsSync(path));
}

function playwrightsOwn() {
  try {
    return chromium.executablePath();
  } catch {
    return undefined; // a platform Playwright has no build for
  }
}

/** The Chromium to launch; throws the one-line install hint when there is none. */
export function chromiumPath() {
  const path = findChromium();
  if (!path) throw new Error(CHROMIUM_HINT);
  return path;
}
