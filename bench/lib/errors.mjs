// What failures of the generated history say: a dozen kinds of error as Playwright reports them
// (numbers, ids and quoted values vary per occurrence and are masked by the fingerprint), and one
// regression that starts on a named run and keeps failing, so error groups, first-seen and search
// have the shapes a real history gives them. Fingerprints come from the server's own function
// (packages/server/src/errorGroups/fingerprint.ts, loaded from source through tsx: the built server
// bundles it out of reach), so the rows carry exactly what ingestion would have stored.
import { fileURLToPath } from 'node:url';

const KINDS = [
  (n) => `expect(locator).toHaveText(expected) failed\n\nLocator: locator('#total')\nExpected: "$${n % 97}.00"\nReceived: "$${(n % 97) - 2}.00"`,
  (n) => `locator.click: Timeout ${15000 + (n % 3) * 5000}ms exceeded.\nCall log:\n  - waiting for getByRole('button', { name: 'Save' })`,
  (n) => `Error: read ECONNRESET\n    at TLSWrap.onStreamRead (node:internal/stream_base_commons:${200 + (n % 20)}:20)`,
  (n) => `page.goto: net::ERR_CONNECTION_REFUSED at http://localhost:${3000 + (n % 5)}/orders/${n}`,
  (n) => `expect(received).toBe(expected) // Object.is equality\n\nExpected: ${n % 10}\nReceived: ${(n % 10) + 1}`,
  () => `TypeError: Cannot read properties of undefined (reading 'total')`,
  (n) => `Error: apiRequestContext.post: Request failed with status code ${500 + (n % 4)}`,
  (n) => `Test timeout of ${30000 + (n % 2) * 30000}ms exceeded.`,
  (n) => `expect(page).toHaveURL(expected) failed\n\nExpected pattern: /\\/checkout\\/done/\nReceived string: "http://localhost:3000/checkout/${n}"`,
  (n) => `Error: connect ETIMEDOUT 10.0.${n % 255}.12:5432`,
  () => `expect(locator).toBeVisible() failed\n\nLocator: getByText('Order placed')\nExpected: visible\nReceived: hidden`,
  (n) => `Error: strict mode violation: getByRole('row') resolved to ${2 + (n % 9)} elements`,
];
/** The regression: one test fails with it on every run from `regressionRun` on. */
export const REGRESSION_MESSAGE = (n) => `Error: invariant failed: cart total mismatch for order ${n}`;
/** The test case (index in the suite) the regression hits. */
export const REGRESSION_CASE = 123;

/** The message of a random failure of case `c` in run `r` (deterministic; the kind depends mostly on the case). */
export const failureMessage = (c, r) => KINDS[(c * 7 + (r % 3)) % KINDS.length](r * 31 + c);

/** One line of stdout a test writes (every tenth test): searchable output. */
export const stdoutLine = (c, r) => `[setup] seeded ${1 + ((r + c) % 40)} orders for user u-${(c * 7919 + r) % 100000} in ${10 + ((r * c) % 90)} ms\n`;
/** stderr of a failure whose error is a connection reset. */
export const stderrOf = (message) => (message.includes('ECONNRESET') ? 'warn: retrying POST /api/cart after socket hang up (ECONNRESET)\n' : null);

let fingerprint;
/** The server's fingerprintOf(message, file). */
export async function loadFingerprint() {
  if (!fingerprint) {
    const { tsImport } = await import('tsx/esm/api');
    const source = fileURLToPath(new URL('../../packages/server/src/errorGroups/fingerprint.ts', import.meta.url));
    fingerprint = (await tsImport(source, import.meta.url)).fingerprintOf;
  }
  return fingerprint;
}
