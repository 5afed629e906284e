import type { Step, Test, TestCreated, TestError, TestListItem } from '@testreport/contract';
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

export const toTestListItem = (r: Pick<TestRow, 'id' | 'run_id' | 'title' | 'full_title' | 'file_path' | 'status' | 'duration' | 'is_flaky' | 'error' | 'owners' | 'created_at'>): TestListItem => ({
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
  createdAt: r.created_at,
});

export const stepsOf = (r: TestRow): Step[] => fromJson<Step[]>(r.steps, []);
