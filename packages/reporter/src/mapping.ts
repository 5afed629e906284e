import { randomUUID } from 'node:crypto';
import { relative, sep } from 'node:path';
import type { FullConfig, Suite, TestCase, TestError, TestResult, TestStep } from '@playwright/test/reporter';
import type { StepInput, TestCreate } from '@testreport/contract';
import { appendCapped, cleanError, cleanOutput, TEXT_CAPS } from '@testreport/contract/core';
import type { SuiteRecord, TestBody } from './delivery/records.js';

export type { TestBody };
export type TestStatus = TestCreate['status'];

/** Caps what one test can carry, so a pathological test cannot make a huge payload or heap. */
const MAX_STEPS = 2_000;
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

const STEP_CATEGORY: Record<string, StepInput['category']> = {
  hook: 'hook',
  fixture: 'fixture',
  expect: 'assertion',
  'pw:api': 'action',
  'test.step': 'action',
};

export function mapSteps(steps: readonly TestStep[]): StepInput[] {
  let budget = MAX_STEPS;
  const walk = (list: readonly TestStep[]): StepInput[] => {
    const out: StepInput[] = [];
    for (const s of list) {
      if (budget-- <= 0) break;
      const children = s.steps.length ? walk(s.steps) : undefined;
      out.push({
        title: s.title || s.category,
        // Other categories (test.attach and future ones) are user-visible actions.
        category: STEP_CATEGORY[s.category] ?? 'action',
        status: s.error ? 'failed' : 'passed',
        duration: Math.max(0, s.duration),
        error: s.error ? { message: errorMessage(s.error) } : null,
        ...(children?.length ? { steps: children } : {}),
      });
    }
    return out;
  };
  return walk(steps);
}

function errorMessage(e: TestError): string {
  return cleanError(e.message ?? e.value ?? 'Unknown error');
}

/** expect() failures print "Expected: …" and "Received: …" lines; Playwright does not expose them apart. */
function matcherValues(message: string): { expected?: string; actual?: string } {
  const expected = /^\s*Expected(?: [\w ]+)?: (.*)$/m.exec(message)?.[1];
  const actual = /^\s*Received(?: [\w ]+)?: (.*)$/m.exec(message)?.[1];
  return { ...(expected !== undefined ? { expected } : {}), ...(actual !== undefined ? { actual } : {}) };
}

export function mapError(e: TestError | undefined): TestBody['error'] {
  if (!e) return null;
  const message = errorMessage(e);
  return {
    message,
    ...(e.stack ? { stack: cleanError(e.stack) } : {}),
    ...matcherValues(message),
  };
}

function joinOutput(chunks: readonly (string | Buffer)[]): string {
  let out = '';
  for (const c of chunks) {
    out = appendCapped(out, typeof c === 'string' ? c : c.toString('utf8'));
    if (out.length >= TEXT_CAPS.output) break;
  }
  return out;
}

/** Output of every attempt, labelled when there was more than one, so a flaky test's failing run is visible. */
function outputOf(results: readonly TestResult[], pick: (r: TestResult) => readonly (string | Buffer)[]): string | undefined {
  if (results.every((r) => pick(r).length === 0)) return undefined;
  const parts = results
    .map((r) => ({ retry: r.retry, text: joinOutput(pick(r)) }))
    .filter((p) => p.text.length > 0)
    .map((p) => (results.length > 1 ? `--- attempt ${p.retry + 1} ---\n${p.text}` : p.text));
  const text = parts.join(results.length > 1 ? '\n' : '');
  return text ? cleanOutput(text) : undefined;
}

const tagsOf = (tags: readonly string[]): string[] => (tags.length === 0 ? [] : [...new Set(tags)].slice(0, 100));

/**
 * One test as the server stores it. Duration, steps and attempt come from the attempt that decided
 * the status (the last one); the error is the last failure's, so a flaky test shows why it flaked.
 */
export function mapTest(test: TestCase, config: FullConfig, multiProject: boolean): TestBody {
  const results = test.results;
  const last = results[results.length - 1];
  const status = statusOf(test);
  let lastFailure: TestResult | undefined;
  for (let i = results.length - 1; i >= 0 && !lastFailure; i--) if (results[i].error) lastFailure = results[i];
  const errorSource = status === 'failed' ? (last?.error ?? lastFailure?.error) : status === 'flaky' ? lastFailure?.error : undefined;
  const stdout = outputOf(results, (r) => r.stdout);
  const stderr = outputOf(results, (r) => r.stderr);
  return {
    title: test.title || '(untitled)',
    fullTitle: fullTitleOf(test, multiProject) || test.title || '(untitled)',
    filePath: relativeFile(config, test.location.file),
    lineNumber: test.location.line,
    status,
    duration: Math.max(0, last?.duration ?? 0),
    retries: last?.retry ?? 0,
    attempt: (last?.retry ?? 0) + 1,
    isFlaky: status === 'flaky',
    tags: tagsOf(test.tags),
    annotations: test.annotations.length ? test.annotations.slice(0, 100).map((a) => ({ type: a.type, description: a.description ?? '' })) : [],
    error: mapError(errorSource),
    steps: last ? mapSteps(last.steps) : [],
    ...(stdout ? { stdout } : {}),
    ...(stderr ? { stderr } : {}),
  };
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
