import { describe, expect, it } from 'vitest';
import type { RunSummaryResponse, SummaryTest } from '@testreport/contract';
import { renderRunSummary, SUMMARY_MARKER } from './render.js';

/* The renderer alone: what a hostile or odd test title does to the Markdown, and the size cap. */
const test = (fullTitle: string, over: Partial<SummaryTest> = {}): SummaryTest => ({
  testId: 't1', title: fullTitle, fullTitle, filePath: 'tests/a.spec.ts', status: 'failed', error: 'Error: boom', newError: false, errorFirstSeen: null, quarantined: false, owners: [], url: 'https://tr.example/tests/t1', ...over,
});
const list = (...items: SummaryTest[]) => ({ total: items.length, items });
const empty = list();

function summary(over: Partial<RunSummaryResponse> = {}): RunSummaryResponse {
  return {
    run: {
      id: 'r1', projectId: 'p1', status: 'passed', branch: 'main', commitSha: null, commitMessage: null, ciProvider: null, ciBuildId: null, ciBuildUrl: null,
      runTitle: null, passRate: 100, duration: 1500, createdAt: '2026-01-01T00:00:00.000Z', totalTests: 3, passedTests: 3, failedTests: 0, skippedTests: 0, flakyTests: 0,
      url: 'https://tr.example/runs/r1',
    },
    base: { branch: 'main', run: null },
    failed: empty, newFailures: empty, fixed: empty, flaky: empty, quarantinedFailures: empty,
    ...over,
  };
}

describe('renderRunSummary', () => {
  it('a passing run is the marker, a heading, the counts and the link, with no empty lists', () => {
    const md = renderRunSummary(summary(), { format: 'markdown' });
    expect(md.split('\n')[0]).toBe(SUMMARY_MARKER);
    expect(md).toContain('### ✅ [Test run passed](https://tr.example/runs/r1) on `main`');
    expect(md).toContain('| 3 | 3 | 0 | 0 | 0 | 100% | 1.5 s |');
    expect(md).toContain('No finished run on `main` to compare with');
    expect(md).not.toContain('####');
    expect(md.endsWith('[Open the run in testreport](https://tr.example/runs/r1)')).toBe(true);
  });

  it('a title cannot add links, HTML or table cells, and an error with backticks stays one code span', () => {
    const evil = test('cart > [click](https://evil.example) <img src=x onerror=alert(1)> | *bold*', { error: 'Error: expected `a` got ``b``' });
    const md = renderRunSummary(summary({ failed: list(evil) }), { format: 'markdown' });
    const line = md.split('\n').find((l) => l.startsWith('- ['))!;
    expect(line).toContain('cart > \\[click\\](https://evil.example) &lt;img src=x onerror=alert(1)> \\| \\*bold\\*');
    expect(line).not.toContain('<img');
    expect(line).toContain('<br>``` Error: expected `a` got ``b`` ```');
  });

  it('names the owners of each listed test, escaped like any text', () => {
    const s = summary({ newFailures: list(test('pays', { owners: ['@acme/checkout', '@j_doe'] })), failed: list(test('pays', { owners: ['@acme/checkout', '@j_doe'] })) });
    const md = renderRunSummary(s, { format: 'markdown' });
    expect(md).toContain('· owners: @acme/checkout @j\\_doe');
    expect(renderRunSummary(s, { format: 'text' })).toContain('pays — tests/a.spec.ts · owners: @acme/checkout @j_doe');
    expect(renderRunSummary(summary({ failed: list(test('pays')) }), { format: 'text' })).not.toContain('owners');
  });

  it('a CI build URL with parentheses or spaces cannot end its link early', () => {
    const md = renderRunSummary(summary({ run: { ...summary().run, ciBuildUrl: 'https://ci.example/a (b)' } }), { format: 'markdown' });
    expect(md).toContain('[CI build](https://ci.example/a%20%28b%29)');
  });

  it('keeps to maxChars with very long titles and many tests, saying how many were left out', () => {
    const many = Array.from({ length: 300 }, (_, i) => test(`t${i} ${'x'.repeat(2_000)}`, { error: 'y'.repeat(5_000) }));
    const s = summary({ failed: { total: 5_000, items: many }, run: { ...summary().run, status: 'failed', failedTests: 5_000 } });
    for (const max of [60_000, 5_000, 2_000]) {
      const md = renderRunSummary(s, { format: 'markdown', maxChars: max });
      expect(md.length).toBeLessThanOrEqual(max);
      const shown = md.split('\n').filter((l) => l.startsWith('- [')).length;
      expect(md).toContain(`- _…and ${5_000 - shown} more: see [the run](https://tr.example/runs/r1)_`);
    }
  });
});
