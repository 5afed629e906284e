import type { Attempt, AttemptParsed, Step, Test, TestCreated, TestDetail, TestError, TestListItem } from '@testreport/contract';
import { bool, fromJson } from '../db/values.js';
import type { TestRow } from './repo.js';

type Status = Test['status'];

export const toTestCreated = (r: TestRow): TestCreated => ({
  id: r.id, runId: r.run_id, projectId: r.project_id, title: r.title, fullTitle: r.full_title,
  status: r.status as Status, duration: r.duration, isFlaky: bool(r.is_flaky), createdAt: r.created_at,
});

export const toTest = (r: TestRow): Test => ({
  id: r.id,
  runId: r.run_id,
  projectId: r.project_id,
  title: r.title,
  fullTitle: r.full_title,
  filePath: r.file_path,
  lineNumber: r.line_number,
  status: r.status as Status,
  duration: r.duration,
  retries: r.retries,
  attempt: r.attempt,
  isFlaky: bool(r.is_flaky),
  tags: fromJson<string[]>(r.tags, []),
  annotations: fromJson<Test['annotations']>(r.annotations, []),
  error: fromJson<TestError | null>(r.error, null),
  stdout: r.stdout,
  stderr: r.stderr,
  owners: fromJson<string[]>(r.owners, []),
  createdAt: r.created_at,
});

export const toTestListItem = (r: Pick<TestRow, 'id' | 'run_id' | 'title' | 'full_title' | 'file_path' | 'status' | 'duration' | 'is_flaky' | 'error' | 'owners' | 'run_attempt' | 'created_at'>): TestListItem => ({
  id: r.id,
  runId: r.run_id,
  title: r.title,
  fullTitle: r.full_title,
  filePath: r.file_path,
  status: r.status as Status,
  duration: r.duration,
  isFlaky: bool(r.is_flaky),
  error: fromJson<TestError | null>(r.error, null),
  owners: fromJson<string[]>(r.owners, []),
  ciAttempt: r.run_attempt,
  createdAt: r.created_at,
});

/** Tries as stored: the parsed `attemptInput`s, in the order sent. */
export const storedAttempts = (r: Pick<TestRow, 'attempts'>): AttemptParsed[] => fromJson<AttemptParsed[]>(r.attempts, []);

/** A stored try as the API shows it: every field present (null or empty when not sent), steps counted. */
export const toAttempt = (a: AttemptParsed): Attempt => ({
  retry: a.retry,
  status: a.status,
  duration: a.duration,
  startedAt: a.startedAt ?? null,
  errors: a.errors.map((e) => ({ message: e.message, stack: e.stack ?? null, location: e.location ?? null, snippet: e.snippet ?? null })),
  stdout: a.stdout ?? null,
  stderr: a.stderr ?? null,
  annotations: a.annotations ?? [],
  attachments: a.attachments ?? [],
  stepCount: a.steps?.length ?? 0,
});

export const toTestDetail = (r: TestRow): TestDetail => ({
  ...toTest(r),
  attempts: storedAttempts(r).sort((x, y) => x.retry - y.retry).map(toAttempt),
});

/**
 * Steps of try `retry`, or of the last try when none is named: the test's own steps when it has
 * some (or no tries), else the last try's. Undefined when the named try does not exist; a test sent
 * without tries is its one try, retry 0.
 */
export function stepsOf(r: TestRow, retry?: number): Step[] | undefined {
  const own = fromJson<Step[]>(r.steps, []);
  const attempts = storedAttempts(r);
  if (attempts.length === 0) return retry === undefined || retry === 0 ? own : undefined;
  if (retry === undefined) {
    if (own.length > 0) return own;
    const last = attempts.reduce((a, b) => (b.retry > a.retry ? b : a));
    return (last.steps ?? []) as Step[];
  }
  const hit = attempts.find((a) => a.retry === retry);
  return hit ? ((hit.steps ?? []) as Step[]) : undefined;
}
