import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ResponseOf } from '@testreport/contract';
import { buildProgram } from '../program.js';
import { Output } from '../lib/output.js';
import { insightsInput, printInsights, sparkline } from './insights.js';

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
  mostFailing: [{ testId: 'r-fail', fullTitle: 'cart > coupon', filePath: null, results: 3, failures: 3, failureRate: 1 }],
  flakiest: [{ testId: 'r-flaky', fullTitle: 'login > sso', filePath: null, results: 4, flaky: 1, flakyRate: 0.25 }],
  regressions: [{ testId: 'r-slow', fullTitle: 'cart > checkout', filePath: 'tests/cart.spec.ts', results: 3, p50Before: 2800, p50After: 4200, change: 0.5 }],
  ...over,
});

describe('reporter insights: output', () => {
  it('prints the trend as one line per measure, a space for days without runs, then the four tables', () => {
    const lines = printed((out) => printInsights(out, fixture())).split('\n');
    expect(lines[0]).toBe('Insights, last 7 days (2026-11-14 – 2026-11-20 UTC), branch main');
    expect(lines[1]).toBe('runs       3 on 2 of 7 days');
    expect(lines[2]).toBe('pass rate      █ ▅  100% → 50%');
    expect(lines[3]).toBe('median run     ▆ █  60.0s → 90.0s');
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
