import { describe, expect, it } from 'vitest';
import { snapshotKey, snapshotPaths } from './snapshots.js';

// What Playwright 1.5x attaches for a toHaveScreenshot mismatch and for a missing baseline.
const root = '/repo/e2e';
describe('snapshot paths', () => {
  it('takes a mismatch\'s baseline path from its -expected attachment, relative to rootDir', () => {
    const paths = snapshotPaths([
      { name: 'header-expected.png', path: '/repo/e2e/tests/a.spec.ts-snapshots/header-chromium-linux.png' },
      { name: 'header-actual.png', path: '/repo/e2e/test-results/a-header/header-actual.png' },
      { name: 'header-diff.png', path: '/repo/e2e/test-results/a-header/header-diff.png' },
    ], [], root);
    expect([...paths]).toEqual([['header.png', 'tests/a.spec.ts-snapshots/header-chromium-linux.png']]);
    expect(['header-actual.png', 'header-diff.png', 'header-expected.png', 'trace.zip'].map(snapshotKey)).toEqual(['header.png', 'header.png', 'header.png', null]);
  });

  it('takes a missing baseline\'s path from the error when Playwright wrote no -expected (updateSnapshots none)', () => {
    const paths = snapshotPaths([{ name: 'footer-actual.png', path: '/repo/e2e/test-results/x/footer-actual.png' }], ["Error: A snapshot doesn't exist at /repo/e2e/snaps/footer-chromium.png."], root);
    expect([...paths]).toEqual([['footer.png', 'snaps/footer-chromium.png']]);
  });

  it('leaves out baselines outside the project root and reports without a root', () => {
    expect(snapshotPaths([{ name: 'x-expected.png', path: '/elsewhere/x.png' }], [], root).size).toBe(0);
    expect(snapshotPaths([{ name: 'x-expected.png', path: '/repo/e2e/x.png' }], [], undefined).size).toBe(0);
  });
});
