import type { Generated } from 'kysely';

/** Row types of the database, as Kysely sees them. Booleans are 0/1 integers for portability. */
type Bool = number;

export interface UsersTable { id: string; email: string; name: string; password_hash: string; email_verified_at: string | null; avatar_url: string | null; created_at: string; updated_at: string }
export interface SessionsTable { id: string; user_id: string; token_hash: string; created_at: string; expires_at: string }
export interface EmailTokensTable { id: string; user_id: string; kind: 'verify' | 'reset'; token_hash: string; expires_at: string; used_at: string | null; created_at: string }
export interface OidcLoginsTable { state_hash: string; next: string; created_at: string; expires_at: string; used_at: string | null }
export interface UserIdentitiesTable { id: string; user_id: string; issuer: string; subject: string; email: string; created_at: string; last_sign_in_at: string }
export interface OidcTeamGrantsTable { user_id: string; team_id: string; created_at: string }
export interface TeamsTable { id: string; name: string; created_at: string; updated_at: string }
export interface TeamMembersTable { id: string; team_id: string; user_id: string; role: string; joined_at: string }
export interface InvitationsTable { id: string; team_id: string; email: string; role: string; status: string; token_hash: string; invited_by: string | null; expires_at: string; accepted_at: string | null; created_at: string; updated_at: string }
export interface ProjectsTable { id: string; team_id: string; name: string; created_at: string; updated_at: string }
export interface ProjectSettingsTable { project_id: string; data_retention_days: number; flakiness_threshold: number; auto_quarantine_enabled: Bool; default_branch: Generated<string>; shard_timeout_minutes: number; updated_at: string; auto_quarantine_min_runs: Generated<number>; auto_release_after_passes: Generated<number> }
export interface ApiKeysTable { id: string; project_id: string; name: string; key_hash: string; last4: string; is_active: Bool; expires_at: string | null; last_used_at: string | null; created_by: string | null; created_at: string; updated_at: string }
export interface RunsTable {
  id: string; project_id: string; status: string; branch: string | null; commit_sha: string | null; commit_message: string | null;
  commit_author: string | null; ci_provider: string | null; ci_build_id: string | null; ci_build_url: string | null;
  framework_version: string | null; workers: number | null; shard_current: number | null; shard_total: number | null;
  browser: string | null; os: string | null; viewport: string | null; hostname: string | null; run_title: string | null;
  tags: Generated<string>; grep_patterns: Generated<string>;
  total_tests: number | null; passed_tests: number | null; failed_tests: number | null; skipped_tests: number | null; flaky_tests: number | null;
  duration: number | null; finished_at: string | null; created_at: string; updated_at: string;
  /** Set only on runs of a CI build (hash of ciBuildId + group); unique per project. */
  build_key: string | null; ci_group: string | null; current_attempt: Generated<number>;
  finish_reason: string | null; finish_count: Generated<number>;
  /** CODEOWNERS text the run was sent, and where its tests' file paths start in the repository. */
  codeowners: string | null; root_dir_in_repo: string | null;
}
export interface RunShardsTable {
  run_id: string; shard_index: number; attempt: number; status: string;
  total_tests: number | null; passed_tests: number | null; failed_tests: number | null; skipped_tests: number | null; flaky_tests: number | null;
  duration: number | null; started_at: string; finished_at: string | null; last_activity_at: string;
}
export interface TestSuitesTable { id: string; run_id: string; project_id: string; title: string; file_path: Generated<string>; parent_suite_id: string | null; created_at: string; updated_at: string }
export interface TestCasesTable {
  id: string; project_id: string; file_path: Generated<string>; full_title: string; title: string; latest_test_id: string | null;
  is_quarantined: Generated<Bool>; quarantined_at: string | null; quarantine_source: string | null;
  flakiness_score: Generated<number>; total_runs: Generated<number>; flaky_runs: Generated<number>; last_flaky_at: string | null;
  stats_dirty: Generated<Bool>; created_at: string; updated_at: string;
  /** JSON array: the owners of the latest result. */
  owners: string | null;
  released_at: string | null;
}
export interface TestsTable {
  id: string; run_id: string; project_id: string; case_id: string; title: string; full_title: string; file_path: string | null;
  line_number: number | null; status: string; duration: number; retries: Generated<number>; attempt: Generated<number>;
  is_flaky: Generated<Bool>; tags: string | null; annotations: string | null; error: string | null; error_message: string | null;
  steps: string | null; stdout: string | null; stderr: string | null; branch: string | null; commit_sha: string | null; created_at: string;
  run_attempt: Generated<number>;
  /** errorGroups/fingerprint.ts; null without an error. */
  error_fingerprint: string | null;
  /** JSON of the test's tries (contract `attemptInput` as parsed), NULL when none were sent. */
  attempts?: string | null;
  /** JSON array of CODEOWNERS owners; null = none known. */
  owners: string | null;
}
export interface ArtifactsTable { id: string; project_id: string; run_id: string; test_id: string | null; retry?: number | null; snapshot_path?: string | null; type: string; file_name: string; file_size: number; mime_type: string; storage_key: string; sha256: string | null; created_at: string }
export interface WebhooksTable { id: string; project_id: string; url: string; events: string; format: Generated<string>; headers: Generated<string>; secret: string | null; is_active: Bool; created_at: string; updated_at: string }
export interface WebhookDeliveriesTable { id: string; webhook_id: string; project_id: string; event: string; payload: string; status: string; attempt_count: Generated<number>; next_attempt_at: string | null; locked_until: string | null; created_at: string; updated_at: string }
export interface WebhookAttemptsTable { id: string; delivery_id: string; attempt: number; status_code: number | null; error: string | null; duration_ms: number; created_at: string }
export interface IdempotencyKeysTable { id: string; scope: string; key: string; method: string; path: string; request_hash: string; status_code: number | null; response_body: string | null; response_brotli: Buffer | null; created_at: string }

export interface QuarantineEventsTable { id: string; project_id: string; case_id: string; action: string; actor_type: string; actor_id: string; actor_name: string; reason: string; score: number; created_at: string }

export interface SnapshotAcceptancesTable { test_id: string; name: string; run_id: string; actual_id: string; accepted_by: string; accepted_at: string }

/** Insights aggregates (migration 017, insights/upkeep.ts): one row per project, UTC day of the run, branch ('' for none) and test case. */
export interface InsightCaseDaysTable { project_id: string; day: string; branch: string; case_id: string; results: number; passed: number; failed: number; flaky: number; skipped: number; latest_test_id: string }
/** Durations of the non-skipped results of a case-day, by log-scale bucket (insights/buckets.ts). */
export interface InsightCaseDurationsTable { project_id: string; day: string; branch: string; case_id: string; bucket: number; n: number; total_ms: number }
/** The insights aggregates folded per case and day (migration 022, insights/rollup.ts); `all_branches` 1: every branch, `branch` ''. */
/** What stored batches added to the insights, not yet folded (migration 022, insights/upkeep.ts). */
export interface InsightPendingTable { id: Generated<number>; project_id: string; day: string; branch: string; case_id: string; results: number; passed: number; failed: number; flaky: number; skipped: number; latest_test_id: string; histogram: Buffer }
export interface InsightRollupsTable { project_id: string; all_branches: number; branch: string; day: string; case_id: string; results: number; passed: number; failed: number; flaky: number; skipped: number; latest_test_id: string; histogram: Buffer }
/** Error-group aggregates (migration 019, errorGroups/upkeep.ts): per project, fingerprint, run, UTC day of the result and branch ('' for none). */
export interface ErrorGroupRunsTable { project_id: string; fingerprint: string; run_id: string; day: string; branch: string; occurrences: number; first_id: string; last_id: string }
/** Per project, fingerprint, test case, UTC day and branch: occurrences and the case's newest occurrence. */
export interface ErrorGroupCasesTable { project_id: string; fingerprint: string; case_id: string; day: string; branch: string; occurrences: number; last_id: string }
/** Per project, scope ('' = every branch, else a branch) and fingerprint: what `GET /errors` lists. */
export interface ErrorGroupTotalsTable { project_id: string; branch: string; fingerprint: string; occurrences: number; runs: number; tests: number; first_id: string; last_id: string }
/** What the writes of results added to their run, per status, in a few slots (migration 030). */
export interface RunResultCountsTable { run_id: string; slot: number; total: number; passed: number; failed: number; skipped: number; flaky: number }
export interface RateLimitWindowsTable { bucket: string; window_start: number; count: number }

export interface Database {
  users: UsersTable;
  sessions: SessionsTable;
  email_tokens: EmailTokensTable;
  teams: TeamsTable;
  team_members: TeamMembersTable;
  oidc_logins: OidcLoginsTable;
  user_identities: UserIdentitiesTable;
  oidc_team_grants: OidcTeamGrantsTable;
  invitations: InvitationsTable;
  projects: ProjectsTable;
  project_settings: ProjectSettingsTable;
  api_keys: ApiKeysTable;
  runs: RunsTable;
  run_shards: RunShardsTable;
  test_suites: TestSuitesTable;
  test_cases: TestCasesTable;
  tests: TestsTable;
  run_result_counts: RunResultCountsTable;
  artifacts: ArtifactsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  idempotency_keys: IdempotencyKeysTable;
  rate_limit_windows: RateLimitWindowsTable;
  quarantine_events: QuarantineEventsTable;
  snapshot_acceptances: SnapshotAcceptancesTable;
  insight_case_days: InsightCaseDaysTable;
  insight_case_durations: InsightCaseDurationsTable;
  insight_rollups: InsightRollupsTable;
  insight_pending: InsightPendingTable;
  error_group_runs: ErrorGroupRunsTable;
  error_group_cases: ErrorGroupCasesTable;
  error_group_totals: ErrorGroupTotalsTable;
}
