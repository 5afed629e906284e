import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResponseOf } from '@testreport/contract';
import { createRun, postTests, startTestServer, testBody, type TestServer } from '@testreport/server/testing';
import { assertBuilt, cli } from '../../../../test/cli/helpers.js';
import { buildProgram } from '../program.js';
import { Output } from '../lib/output.js';
import { keyContext } from '../testing/context.js';
import { getInsights, insightsInput, printInsights, sparkline } from './insights.js';

type Insights = ResponseOf<'insights'>;

const printed = (print: (out: Output) => void) => {
  let text = '';
  const sink = new Writable({ write: (chunk, _e, done) => ((text += String(chunk)), done()) });
  print(new Output(false, 0, sink, sink));
  return text;
};

const dates = ['2026-11-18', '2026-11-19', '2026-11-20'];
const fixture = (over: Partial<Insights> = {}): Insights => ({
  days: 7, branch: 'main', owner: null, from: '2026-11-14', to: '2026-11-20',
  trend: [
    ...['2026-11-14', '2026-11-15', '2026-11-16', '2026-11-17'].map((date) => ({ date, runs: 0, passRate: null, medianDuration: null })),
    { date: dates[0], runs: 2, passRate: 100, medianDuration: 60_000 },
    { date: dates[1], runs: 0, passRate: null, medianDuration: null },
    { date: dates[2], runs: 1, passRate: 50, medianDuration: 90_000 },
  ],
  slowest: [{ testId: 'r-slow', fullTitle: 'cart > checkout', filePath: 'tests/cart.spec.ts', results: 3, p50: 4200, p95: 9100 }],
  mostFailing: [{ testId: 'r-fail', fullTitle: 'cart > coupon', filePath: null, results: 3, failures: 3, failureRate: 100 }],
  flakiest: [{ testId: 'r-flaky', fullTitle: 'login > sso', filePath: null, results: 4, flaky: 1, flakyRate: 25 }],
  regressions: [{ testId: 'r-slow', fullTitle: 'cart > checkout', filePath: 'tests/cart.spec.ts', results: 3, p50Before: 2800, p50After: 4200, change: 50 }],
  ...over,
});

describe('reporter insights: output', () => {
  it('prints the trend as one line per measure, a space for days without runs, then the four tables', () => {
    const lines = printed((out) => printInsights(out, fixture())).split('\n');
    expect(lines[0]).toBe('Insights, last 7 days (2026-11-14 – 2026-11-20 UTC), branch main');
    expect(lines[1]).toBe('runs       3 on 2 of 7 days');
    expect(lines[2]).toBe('pass rate      █ ▅  100% → 50%');
    expect(lines[3]).toBe('median run     ▆ █  1m 0s → 1m 30s');
    const text = lines.join('\n');
    expect(text).toMatch(/Duration regressions \(p50 vs the 7 days before\)\nBEFORE\s+AFTER\s+CHANGE\s+TEST ID\s+TEST\n\s*2\.8s\s+4\.2s\s+\+50%\s+r-slow\s+cart > checkout/);
    expect(text).toMatch(/Slowest\n\s*P50\s+P95\s+RESULTS\s+TEST ID\s+TEST\n\s*4\.2s\s+9\.1s\s+3\s+r-slow\s+cart > checkout/);
    expect(text).toMatch(/Most failing\nRATE\s+FAILED\s+TEST ID\s+TEST\n\s*100%\s+3\/3\s+r-fail\s+cart > coupon/);
    expect(text).toMatch(/Flakiest\nRATE\s+FLAKY\s+TEST ID\s+TEST\n\s*25%\s+1\/4\s+r-flaky\s+login > sso/);
  });

  it('says what to do when the window has no runs, and why each list is empty', () => {
    const empty = fixture({ trend: fixture().trend.map((d) => ({ ...d, runs: 0, passRate: null, medianDuration: null })), slowest: [], mostFailing: [], flakiest: [], regressions: [] });
    const text = printed((out) => printInsights(out, empty));
    expect(text).toContain('No runs in this window. Upload results (reporter upload, or the Playwright reporter), or try --days 90 or another --branch.');
    expect(text).toContain('No test got slower by 20% and 100 ms or more.');
    expect(text).toContain('No test failed.');
    expect(text).toContain('No test passed only on a retry.');
  });

  it('draws low to high over the range given', () => {
    expect(sparkline([0, 50, 100, null], 0, 100)).toBe('▁▅█ ');
  });
});

describe('reporter insights: flags', () => {
  it('takes --days 7, 30 or 90 (default 30), --branch, --owner and --limit 1-100', () => {
    expect(insightsInput({})).toEqual({ days: 30 });
    expect(insightsInput({ days: '90', branch: 'main', owner: '@acme/pay', limit: '5' })).toEqual({ days: 90, branch: 'main', owner: '@acme/pay', limit: 5 });
    expect(() => insightsInput({ days: '14' })).toThrow('--days must be one of 7, 30, 90, got "14"');
    expect(() => insightsInput({ days: '7.0' })).toThrow('--days must be one of 7, 30, 90');
    expect(() => insightsInput({ limit: '101' })).toThrow('--limit must be a whole number from 1 to 100, got "101"');
    const cmd = buildProgram().commands.find((c) => c.name() === 'insights')!;
    expect(cmd.options.map((o) => o.long)).toEqual(['--days', '--branch', '--owner', '--limit']);
  });
});

/*
 * Against a real server, a history whose truth is known: one run a day on main for 14 days up to
 * today. "checkout > pays" takes 1000 ms before the 7-day window and 1600 ms in it (+60 %);
 * "coupon > applies" always fails; "login > sso" is flaky (passed on a retry) on the days 0, 2, 4, 6 back.
 */
describe('reporter insights: against a server', () => {
  let srv: TestServer;
  const TODAY = '2026-11-26';
  let clock = new Date(`${TODAY}T12:00:00.000Z`);
  beforeAll(async () => {
    srv = await startTestServer({ now: () => clock });
    for (let back = 13; back >= 0; back--) {
      clock = new Date(Date.parse(`${TODAY}T10:00:00.000Z`) - back * 86_400_000);
      const run = (await createRun(srv, { branch: 'main', commitSha: `c${back}` })).id;
      await postTests(srv, [
        testBody(run, srv.projectId, { title: 'pays', fullTitle: 'checkout > pays', duration: back < 7 ? 1600 : 1000 }),
        testBody(run, srv.projectId, { title: 'applies', fullTitle: 'coupon > applies', status: 'failed', duration: 200, error: { message: 'Error: expired' } }),
        testBody(run, srv.projectId, { title: 'sso', fullTitle: 'login > sso', duration: 300, ...(back % 2 === 0 ? { status: 'flaky', retries: 1 } : {}) }),
      ]);
      clock = new Date(clock.getTime() + 120_000);
      await srv.api('PATCH', `/runs/${run}`, { auth: srv.apiKey, body: { status: 'failed', duration: 120_000 } });
    }
    clock = new Date(`${TODAY}T12:00:00.000Z`);
  }, 120_000);
  afterAll(() => srv?.close());

  it('prints the trend and the regression, slowest, failing and flaky tests the history holds', async () => {
    const res = await getInsights(keyContext(srv), { days: 7, branch: 'main' });
    expect(res).toMatchObject({ days: 7, branch: 'main', from: '2026-11-20', to: TODAY });
    const text = printed((out) => printInsights(out, res));
    expect(text).toContain('Insights, last 7 days (2026-11-20 – 2026-11-26 UTC), branch main');
    expect(text).toContain('runs       7 on 7 of 7 days');
    expect(text).toMatch(/median run\s+█{7}  2m 0s → 2m 0s\n/);
    expect(text).toMatch(/Duration regressions.*\nBEFORE.*\n\s*1\.0s\s+1\.6s\s+\+60%\s+\S+\s+checkout > pays\n/);
    expect(text).toMatch(/Slowest\n.*\n\s*1\.6s\s+1\.6s\s+7\s+\S+\s+checkout > pays\n\s*300ms\s+300ms\s+7\s+\S+\s+login > sso\n\s*200ms/);
    expect(text).toMatch(/Most failing\n.*\n\s*100%\s+7\/7\s+\S+\s+coupon > applies\n\n/);
    expect(text).toMatch(/Flakiest\n.*\n\s*57\.1%\s+4\/7\s+\S+\s+login > sso\n/);
    // Each list names the test's latest result, which opens with `reporter tests get`.
    const latest = (await srv.api('GET', `/tests/${res.slowest[0].testId}`, { auth: srv.apiKey })).body;
    expect(latest.createdAt.slice(0, 10)).toBe(TODAY);
  });

  it('--json prints the API response exactly; a bad --days is a usage error', async () => {
    assertBuilt();
    const env = { TESTREPORT_URL: srv.url, TESTREPORT_API_KEY: srv.apiKey };
    const json = await cli(['insights', '--days', '7', '--branch', 'main', '--limit', '2', '--json'], env);
    expect(json.code).toBe(0);
    expect(json.json).toEqual(await getInsights(keyContext(srv), { days: 7, branch: 'main', limit: 2 }));
    expect(json.json.slowest).toHaveLength(2);
    const bad = await cli(['insights', '--days', '14'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--days must be one of 7, 30, 90, got "14"');
  });
});
