import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURE_COUNTS, FIXTURES_DIR } from '../../../../test/cli/fixtureCounts.js';
import { resolveInputs } from './inputs.js';
import { readReport } from './read.js';
import { MalformedReportError, type TestRecord } from './types.js';

async function records(path: string, multiProject = false): Promise<TestRecord[]> {
  const out: TestRecord[] = [];
  for await (const r of readReport(await resolveInputs(path), { multiProject })) if (r.kind === 'test') out.push(r);
  return out;
}

describe('report parsers on real reports', () => {
  for (const [name, want] of Object.entries(FIXTURE_COUNTS)) {
    it(`counts ${name} like its elements say`, async () => {
      const tests = await records(join(FIXTURES_DIR, name));
      const by = (s: string) => tests.filter((t) => t.test.status === s).length;
      expect({ total: tests.length, passed: by('passed'), failed: by('failed'), skipped: by('skipped'), flaky: by('flaky') }).toEqual(want);
      for (const t of tests) {
        expect(t.test.title.length).toBeGreaterThan(0);
        expect(t.test.duration).toBeGreaterThanOrEqual(0);
        if (t.test.error) expect(t.test.error.message).not.toMatch(/\u001b\[/);
      }
    });
  }

  it('keeps Surefire reruns as retries of a flaky test', async () => {
    const [t] = await records(join(FIXTURES_DIR, 'junit/maven-surefire-flakyfailure.xml'));
    expect(t.test).toMatchObject({ status: 'flaky', isFlaky: true, retries: 1, attempt: 2 });
    expect(t.test.error?.message).toMatch(/^Expected: <false>/);
  });

  it('nests PHPUnit suites and joins the path into fullTitle', async () => {
    const tests = await records(join(FIXTURES_DIR, 'junit/phpunit-nested-phpcheckstyle.xml'));
    expect(Math.max(...tests.map((t) => t.suites.length))).toBe(3);
    const t = tests[0];
    expect(t.test.fullTitle.startsWith(t.suites.map((s) => s.title).join(' > '))).toBe(true);
  });

  it('reads the .NET report that starts with a BOM and has no declaration', async () => {
    const tests = await records(join(FIXTURES_DIR, 'junit/dotnet-junitlogger-nunit.xml'));
    const failed = tests.find((t) => t.test.status === 'failed')!;
    expect(failed.test.error?.message.length).toBeGreaterThan(0);
  });

  it('maps Playwright retries, ANSI-free errors, projects and trace attachments', async () => {
    const file = join(FIXTURES_DIR, 'playwright-json/pw-1.37-retries-flaky.json');
    const tests = await records(file, true);
    const flaky = tests.find((t) => t.test.status === 'flaky')!;
    expect(flaky.test.retries).toBeGreaterThan(0);
    expect(flaky.test.fullTitle.split(' > ')[0]).toBe(flaky.project);
    const failed = tests.find((t) => t.test.status === 'failed')!;
    expect(failed.test.error?.message).toContain('Expected');
    expect(failed.test.error?.message).not.toContain('\u001b');
    expect(tests.flatMap((t) => t.attachments).filter((a) => a.name === 'trace')).toHaveLength(3);
    expect(tests[0].suites[0].filePath).toBeTruthy();
  });

  it('keeps four levels of describe blocks', async () => {
    const tests = await records(join(FIXTURES_DIR, 'playwright-json/pw-1.38-nested-suites.json'));
    expect(Math.max(...tests.map((t) => t.suites.length))).toBe(4);
  });

  it('rejects a malformed report with the reason', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cli-bad-'));
    writeFileSync(join(dir, 'broken.json'), '{"config":{},"suites":[{"title":"a", ');
    await expect(records(join(dir, 'broken.json'))).rejects.toBeInstanceOf(MalformedReportError);
    writeFileSync(join(dir, 'other.json'), '{"hello":1}');
    await expect(records(join(dir, 'other.json'))).rejects.toThrow(/no "suites" array/);
    writeFileSync(join(dir, 'broken.xml'), '<testsuite><testcase name="a"></testsuite>');
    await expect(records(join(dir, 'broken.xml'))).rejects.toThrow(/not valid JUnit XML/);
    writeFileSync(join(dir, 'html.xml'), '<html><body/></html>');
    await expect(records(join(dir, 'html.xml'))).rejects.toThrow(/root element is <html>/);
  });
});
