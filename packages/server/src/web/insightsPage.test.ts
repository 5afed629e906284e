import type { Insights } from '@testreport/contract';
import { describe, expect, it } from 'vitest';
import { axisDuration, niceMax } from './components/dayCharts.js';
import type { NavData } from './layout.js';
import { InsightsPage } from './pages/insights.js';

/*
 * The Insights page drawn from a response made by hand: charts with gaps, every list, every empty
 * state. (insights.test.ts drives the same page over HTTP with a generated history.)
 */
const project = { id: 'p1', teamId: 't1', name: 'Shop', slug: 'shop', createdAt: '2026-01-01T00:00:00.000Z' };
const nav = { email: 'a@b.c', teams: [], current: { project, role: 'viewer' }, section: 'insights' } as unknown as NavData;
const dates = Array.from({ length: 7 }, (_, i) => `2026-11-${String(14 + i).padStart(2, '0')}`);

function fixture(over: Partial<Insights> = {}): Insights {
  return {
    days: 7, branch: 'main', owner: null, from: dates[0], to: dates[6],
    trend: dates.map((date, i) => (i === 2 ? { date, runs: 0, passRate: null, medianDuration: null } : { date, runs: 2, passRate: 100 - i * 5, medianDuration: 60_000 + i * 10_000 })),
    slowest: [{ testId: 't-slow', fullTitle: 'cart > checkout', filePath: 'tests/cart.spec.ts', results: 12, p50: 4200, p95: 9100 }],
    mostFailing: [{ testId: 't-fail', fullTitle: 'cart > coupon', filePath: 'tests/cart.spec.ts', results: 12, failures: 12, failureRate: 100 }],
    flakiest: [{ testId: 't-flaky', fullTitle: 'login > sso', filePath: null, results: 12, flaky: 3, flakyRate: 25 }],
    regressions: [{ testId: 't-slow', fullTitle: 'cart > checkout', filePath: 'tests/cart.spec.ts', results: 12, p50Before: 2800, p50After: 4200, change: 50 }],
    ...over,
  };
}

const html = async (ins: Insights, filters = { days: '7', branch: 'main' }) =>
  String(await InsightsPage({ nav, projectId: 'p1', insights: ins, branches: ['main', 'next'], filters }).toString());

describe('Insights page', () => {
  it('draws both charts per day with a break where a day had no results, and the four lists linking to each test', async () => {
    const page = await html(fixture());
    expect(page).toContain('href="/projects/p1/insights" aria-current="page"');
    expect(page).toContain('<option value="7" selected="">the last 7 days</option>');
    expect(page).toContain('<option value="main" selected="">main</option>');
    // The pass-rate line stops before the empty third day and starts again after it.
    expect(page.match(/<polyline class="rate"/g)).toHaveLength(2);
    expect(page.match(/<circle class="rate-point"/g)).toHaveLength(6);
    expect(page).toContain('<title>2026-11-14: 100% passed in 2 runs</title>');
    expect(page).toContain('<title>2026-11-20: median 2 min 0 s over 2 runs</title>');
    expect(page.match(/<rect class="dur-bar"/g)).toHaveLength(6);
    expect(page).toContain('>11-14</text>'); // date labels on the x axis
    expect(page).toContain('>100%</text>');
    expect(page).toContain('href="/tests/t-slow"');
    expect(page).toContain('2.8 s → 4.2 s');
    expect(page).toContain('+50%');
    expect(page).toContain('9.1 s'); // p95
    expect(page).toContain('>100%</td>'); // failure rate
    expect(page).toContain('3 / 12');
    expect(page).toContain('>25%</td>');
  });

  it('says what to do when the window has no runs, and why each list is empty', async () => {
    const empty = fixture({ trend: dates.map((date) => ({ date, runs: 0, passRate: null, medianDuration: null })), slowest: [], mostFailing: [], flakiest: [], regressions: [] });
    const page = await html(empty);
    expect(page).toContain('No runs on main in the last 7 days. Upload results with the Playwright reporter or <code>reporter upload</code>');
    expect(page).not.toContain('<svg class="chart"');
    expect(page).toContain('it needs results in both windows');
    expect(page).toContain('No test failed in these 7 days.');
    const owned = await html({ ...empty, owner: '@acme/pay', trend: fixture().trend }, { days: '7', branch: 'main', owner: '@acme/pay' } as never);
    expect(owned).toContain('No test owned by @acme/pay passed only on a retry');
    expect(owned).toContain('<svg class="chart"');
    expect(owned).toContain('tests owned by @acme/pay. Retries of one run count once, by their final outcome. The pass rate and the lists count only those tests');
  });

  it('rounds the duration axis to a readable top in its unit', () => {
    expect([niceMax(0), niceMax(730), niceMax(1_000), niceMax(61_000), niceMax(362_000)]).toEqual([1000, 800, 1000, 90_000, 480_000]);
    expect([axisDuration(400, 800), axisDuration(4_500, 9_000), axisDuration(240_000, 480_000)]).toEqual(['400 ms', '4.5 s', '4 min']);
  });
});
