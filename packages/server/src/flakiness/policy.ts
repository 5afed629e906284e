import type { BranchResult } from './repo.js';

/** A case failed in each of its last `minRuns` results on the default branch: broken, not flaky (docs/decisions.md §13). */
export function isBroken(lastOnDefault: BranchResult[], minRuns: number): boolean {
  const last = lastOnDefault.slice(0, minRuns);
  return last.length >= minRuns && last.every((r) => r.status === 'failed');
}

/**
 * Auto-release: the last `passes` results on the default branch are clean passes (passed, no retry
 * needed), all stored after the case was quarantined, so passes from before the quarantine don't count.
 */
export function releasable(lastOnDefault: BranchResult[], passes: number, quarantinedAt: string | null): boolean {
  const last = lastOnDefault.slice(0, passes);
  return (
    passes > 0 &&
    last.length >= passes &&
    last.every((r) => r.status === 'passed' && !r.isFlaky && (quarantinedAt === null || r.createdAt > quarantinedAt))
  );
}

export const quarantineReason = (score: number, threshold: number, runs: number) => `flakiness score ${score} ≥ threshold ${threshold} over ${runs} results`;
export const releaseReason = (passes: number, branch: string) => `${passes} clean passes in a row on ${branch}`;
