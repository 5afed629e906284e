// Realistic test results: the shape and sizes a Playwright reporter sends for one test.

const AREAS = ['checkout', 'login', 'search', 'settings', 'billing', 'dashboard', 'profile', 'onboarding', 'reports', 'admin'];
const ACTIONS = ['shows', 'updates', 'rejects', 'validates', 'saves', 'filters', 'sorts', 'exports', 'deletes', 'restores'];
const THINGS = ['the form', 'an empty field', 'the summary', 'the invoice', 'a long name', 'the table', 'the avatar', 'the draft'];

/** The i-th test of a suite: stable identity (file, describe, title) for a given i; 50 tests per file. */
export function testIdentity(i) {
  const fileIndex = Math.floor(i / 50);
  const area = AREAS[fileIndex % AREAS.length];
  const file = `tests/${area}/${area}-${fileIndex}.spec.ts`;
  const describe = `${area} page`;
  const title = `${ACTIONS[i % ACTIONS.length]} ${THINGS[(i >> 2) % THINGS.length]} #${i}`;
  return { filePath: file, title, fullTitle: `chromium > ${file} > ${describe} > ${title}`, lineNumber: 10 + (i % 50) * 12 };
}

/** Status mix of a healthy suite: mostly passing, a few failures, skips and flaky passes. */
export function pickStatus(r) {
  if (r < 0.9) return 'passed';
  if (r < 0.95) return 'failed';
  if (r < 0.98) return 'skipped';
  return 'flaky';
}

export function steps(duration) {
  return [
    { title: 'Before Hooks', category: 'hook', duration: Math.round(duration * 0.1), steps: [{ title: 'page', category: 'fixture', duration: Math.round(duration * 0.08) }] },
    { title: 'page.goto(/checkout)', category: 'action', duration: Math.round(duration * 0.4) },
    { title: "locator.fill(getByLabel('Email'))", category: 'action', duration: Math.round(duration * 0.1) },
    { title: 'expect.toBeVisible', category: 'assertion', duration: Math.round(duration * 0.2) },
    { title: 'After Hooks', category: 'hook', duration: Math.round(duration * 0.05) },
  ];
}

/** A POST /tests body for the i-th test of a run. */
export function testBody({ runId, projectId, i, rand = Math.random }) {
  const status = pickStatus(rand());
  const duration = Math.round(200 + rand() * 3000);
  const body = {
    runId,
    projectId,
    ...testIdentity(i),
    status,
    duration,
    retries: status === 'flaky' ? 1 : 0,
    attempt: status === 'flaky' ? 1 : 0,
    isFlaky: status === 'flaky',
    tags: i % 3 === 0 ? ['@smoke', '@checkout'] : ['@regression'],
    annotations: status === 'skipped' ? [{ type: 'skip', description: 'not on this platform' }] : [],
    steps: status === 'skipped' ? [] : steps(duration),
  };
  if (status === 'failed') {
    body.error = {
      message: "expect(locator).toHaveText(expected) failed\n\nLocator: locator('#total')\nExpected: \"$42.00\"\nReceived: \"$40.00\"",
      stack: `Error: expect(locator).toHaveText(expected) failed\n    at ${body.filePath}:${body.lineNumber}:5`,
    };
  }
  return body;
}

/** Deterministic pseudo-random numbers so every bench run stores the same data. */
export function seededRandom(seed = 42) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
