import type { Run, RunListItem, Shard } from '@testreport/contract';
import { fromJson } from '../db/values.js';
import type { RunRow } from './repo.js';
import type { StatusCounts } from './statusCounts.js';
import type { ShardRow } from './shardRepo.js';

/** passedTests / totalTests × 100 with two decimals; 0 for an empty run (docs/decisions.md §4). */
export const passRate = (passed: number, total: number) => (total > 0 ? Math.round((passed / total) * 10_000) / 100 : 0);

/**
 * Each count column is null until a PATCH stores it; a null column is derived from the stored
 * tests (docs/decisions.md §4). passRate always follows the resolved counts.
 */
export function resolveCounts(row: RunRow, derived: StatusCounts) {
  const totalTests = row.total_tests ?? derived.total;
  const passedTests = row.passed_tests ?? derived.passed;
  return {
    totalTests,
    passedTests,
    failedTests: row.failed_tests ?? derived.failed,
    skippedTests: row.skipped_tests ?? derived.skipped,
    flakyTests: row.flaky_tests ?? derived.flaky,
    passRate: passRate(passedTests, totalTests),
  };
}

/** `finishedShards` is null for a run without a ciBuildId (it has no shards to count). */
export function toRun(row: RunRow, derived: StatusCounts, finishedShards: number | null = null): Run {
  return {
    id: row.id,
    projectId: row.project_id,
    status: row.status as Run['status'],
    branch: row.branch,
    commitSha: row.commit_sha,
    commitMessage: row.commit_message,
    commitAuthor: row.commit_author,
    ciProvider: row.ci_provider,
    ciBuildId: row.ci_build_id,
    ciBuildUrl: row.ci_build_url,
    frameworkVersion: row.framework_version,
    workers: row.workers,
    shardCurrent: row.shard_current,
    shardTotal: row.shard_total,
    browser: row.browser,
    os: row.os,
    viewport: row.viewport,
    hostname: row.hostname,
    runTitle: row.run_title,
    tags: fromJson<string[]>(row.tags, []),
    grepPatterns: fromJson<string[]>(row.grep_patterns, []),
    ...resolveCounts(row, derived),
    duration: row.duration,
    group: row.ci_group,
    finishedShards,
    finishReason: row.finished_at === null ? null : (row.finish_reason as Run['finishReason']),
    finishCount: row.finish_count,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function toRunListItem(row: RunRow, derived: StatusCounts): RunListItem {
  const { id, projectId, status, branch, commitSha, totalTests, passedTests, failedTests, skippedTests, flakyTests, passRate, duration, createdAt } = toRun(row, derived);
  return { id, projectId, status, branch, commitSha, totalTests, passedTests, failedTests, skippedTests, flakyTests, passRate, duration, createdAt };
}

export const toShard = (r: ShardRow): Shard => ({
  index: r.shard_index,
  attempt: r.attempt,
  status: r.status as Shard['status'],
  totalTests: r.total_tests ?? 0,
  passedTests: r.passed_tests ?? 0,
  failedTests: r.failed_tests ?? 0,
  skippedTests: r.skipped_tests ?? 0,
  flakyTests: r.flaky_tests ?? 0,
  duration: r.duration,
  startedAt: r.started_at,
  finishedAt: r.finished_at,
  lastActivityAt: r.last_activity_at,
});
