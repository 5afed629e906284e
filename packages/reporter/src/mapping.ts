import { randomUUID } from 'node:crypto';
import { dirname, relative, sep } from 'node:path';
import type { FullConfig, Suite, TestCase, TestResult } from '@playwright/test/reporter';
import type { TestCreate } from '@testreport/contract';
import type { SuiteRecord, TestBody } from './delivery/records.js';
import { mapResults, type TryFile } from './results/attempts.js';

export type { TestBody };
export type TestStatus = TestCreate['status'];

/** Caps what one run can carry, so a pathological suite cannot make a huge payload or heap. */
const MAX_SUITES = 1_000;

// Every test of a file names the same file: its relative path is computed once per run and file.
const relativeCache = new WeakMap<FullConfig, Map<string, string>>();

export function relativeFile(config: FullConfig, file: string): string {
  let files = relativeCache.get(config);
  if (!files) relativeCache.set(config, (files = new Map()));
  let rel = files.get(file);
  if (rel === undefined) files.set(file, (rel = relative(config.rootDir, file).split(sep).join('/')));
  return rel;
}

/** Describe blocks and title, with the project name first when the config has several (docs/decisions.md §7). */
export function fullTitleOf(test: TestCase, multiProject: boolean): string {
  // titlePath() = ['', project, file, ...describes, title]
  const path = test.titlePath();
  const parts = path.slice(3);
  const project = path[1];
  if (multiProject && project) parts.unshift(project);
  return parts.join(' > ');
}

export function statusOf(test: TestCase): TestStatus {
  switch (test.outcome()) {
    case 'expected':
      return 'passed';
    case 'flaky':
      return 'flaky';
    case 'skipped':
      return 'skipped';
    default:
      return 'failed';
  }
}

/**
 * Whether this attempt is the test's last one. Playwright retries an attempt that did not end as
 * expected while retries remain; a skipped or expected result is never retried.
 */
export function isFinalAttempt(test: TestCase, result: TestResult): boolean {
  if (result.status === 'skipped' || result.status === 'interrupted') return true;
  if (result.status === test.expectedStatus) return true;
  return result.retry >= test.retries;
}

const tagsOf = (tags: readonly string[]): string[] => (tags.length === 0 ? [] : [...new Set(tags)].slice(0, 100));

/**
 * One test as the server stores it, with every try (results/attempts.ts, shared with `reporter
 * upload`), and the files of its tries to upload, each with the retry that made it.
 */
export function mapTest(test: TestCase, config: FullConfig, multiProject: boolean): { body: TestBody; files: TryFile[] } {
  const status = statusOf(test);
  const { fields, files } = mapResults(test.results, status, { rootDir: config.rootDir, projectRoot: config.configFile ? dirname(config.configFile) : config.rootDir });
  const body: TestBody = {
    title: test.title || '(untitled)',
    fullTitle: fullTitleOf(test, multiProject) || test.title || '(untitled)',
    filePath: relativeFile(config, test.location.file),
    lineNumber: test.location.line,
    status,
    ...fields,
    isFlaky: status === 'flaky',
    tags: tagsOf(test.tags),
    annotations: test.annotations.length ? test.annotations.slice(0, 100).map((a) => ({ type: a.type, description: a.description ?? '' })) : [],
  };
  return { body, files };
}

/** File suites and describe blocks, deduplicated across projects (the same file is one suite), parents first. */
export function suiteRecords(root: Suite, config: FullConfig): SuiteRecord[] {
  const out: SuiteRecord[] = [];
  const seen = new Map<string, string>();
  const walk = (s: Suite, parentCid: string | null, parentKey: string) => {
    if (out.length >= MAX_SUITES) return;
    const filePath = s.location ? relativeFile(config, s.location.file) : undefined;
    const title = s.type === 'file' ? (filePath ?? s.title) : s.title;
    if (!title) return;
    const key = `${parentKey}\n${title}\n${filePath ?? ''}`;
    let cid = seen.get(key);
    if (!cid) {
      cid = randomUUID();
      seen.set(key, cid);
      out.push({ t: 'suite', cid, parentCid, body: { title, ...(filePath ? { filePath } : {}) } });
    }
    for (const child of s.suites) walk(child, cid, key);
  };
  for (const project of root.suites) for (const file of project.suites) walk(file, null, '');
  return out;
}
