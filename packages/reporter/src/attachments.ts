import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import type { TestCase } from '@playwright/test/reporter';
import { planArtifact } from './delivery/artifacts.js';
import type { ArtifactJob } from './delivery/records.js';
import type { ResolvedOptions } from './options.js';
import type { TryFile } from './results/attempts.js';

export interface PendingArtifact {
  testCid: string;
  job: ArtifactJob;
}

const sizeOf = (path: string): number | null => {
  try {
    return statSync(path).size;
  } catch {
    return null;
  }
};

/**
 * The screenshots, videos and traces of a test's tries (`files`, from results/attempts.ts) the
 * `uploadArtifacts` rule selects, files and bodies alike (`testInfo.attach(name, { body })`), each
 * with the retry that made it. A body is referenced, not copied: Playwright already holds it.
 * Attachments over the cap or in a refused format are named in `skipped`.
 */
export function artifactsOf(test: TestCase, files: readonly TryFile[], testCid: string, rule: ResolvedOptions['uploadArtifacts'], skipped: string[]): PendingArtifact[] {
  if (rule === 'none') return [];
  const out: PendingArtifact[] = [];
  const statusOf = new Map(test.results.map((r) => [r.retry, r.status]));
  for (const { retry, snapshotPath, attachment: a } of files) {
    const status = statusOf.get(retry);
    if (rule === 'failures' && (status === test.expectedStatus || status === 'skipped')) continue;
    const plan = planArtifact(a, a.path ? sizeOf(a.path) : null);
    if (plan.ok) out.push({ testCid, job: { cid: randomUUID(), type: plan.type, fileName: plan.fileName, source: plan.source, retry, ...(snapshotPath ? { snapshotPath } : {}) } });
    // A file gone before the end of its test is not worth a warning.
    else if (plan.reason === 'too_large' || plan.reason === 'bad_format') skipped.push(plan.fileName);
  }
  return out;
}
