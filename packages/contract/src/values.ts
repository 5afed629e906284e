// The enumerations, bounds and path rule the schemas are built from, without zod: the CLI and other
// clients that only need a command's choices load these and not every schema (core.ts).

export const RUN_STATUSES = ['running', 'passed', 'failed', 'cancelled'] as const;
export const TEST_STATUSES = ['passed', 'failed', 'skipped', 'flaky'] as const;

export const WEBHOOK_EVENTS = ['run.completed', 'run.failed', 'test.quarantined', 'test.released', 'baselines.accepted'] as const;
export const WEBHOOK_FORMATS = ['generic', 'slack', 'teams'] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export const INSIGHT_WINDOWS = [7, 30, 90] as const;
export type InsightWindow = (typeof INSIGHT_WINDOWS)[number];

export const COMPARE_LIMITS = { listDefault: 50, listMax: 1000, slowerRatio: 0.2, slowerMinMs: 100 } as const;
export const SUMMARY_LIMITS = { listDefault: 50, listMax: 1000 } as const;
export const SHARD_PLAN_MAX_TOTAL = 100;

/**
 * A snapshot path as it lives in the repository: relative to the Playwright project's root, `/`
 * separated, never absolute and never leaving the root (`..`). The server refuses anything else,
 * and `reporter baselines pull` checks again before writing.
 */
export const SNAPSHOT_PATH_MAX = 1_000;
export function snapshotPathProblem(p: string): string | null {
  if (p.length === 0) return 'is empty';
  if (p.length > SNAPSHOT_PATH_MAX) return `is longer than ${SNAPSHOT_PATH_MAX} characters`;
  if (p.includes('\\')) return 'must use / as separator';
  if (p.includes('\0')) return 'contains a NUL character';
  if (p.startsWith('/') || /^[a-zA-Z]:/.test(p)) return 'must be relative to the Playwright project root, not absolute';
  if (p.split('/').some((s) => s === '..' || s === '.' || s === '')) return 'must not contain "..", "." or empty segments';
  return null;
}
