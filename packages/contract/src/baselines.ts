import { z } from 'zod';
import { SNAPSHOT_PATH_MAX, snapshotPathProblem } from './values.js';
import { id, timestamp } from './common.js';

export const snapshotPath = z.string().superRefine((p, ctx) => {
  const problem = snapshotPathProblem(p);
  if (problem) ctx.addIssue({ code: 'custom', message: `snapshotPath ${problem}` });
});

export const acceptance = z.object({ by: z.string(), at: timestamp });

/** A failed or missing snapshot comparison of a test (docs/decisions.md §13): artifact ids of its files. */
export const snapshot = z.object({
  name: z.string(),
  snapshotPath: z.string(),
  expected: id.optional(),
  actual: id,
  diff: id.optional(),
  retry: z.number().int().nullable(),
  acceptance: acceptance.nullable(),
});
export type Snapshot = z.infer<typeof snapshot>;
export const snapshotList = z.array(snapshot);

export const snapshotAccept = z.object({ names: z.array(z.string().min(1).max(SNAPSHOT_PATH_MAX)).min(1).max(1_000).optional() }).strict();
export type SnapshotAccept = z.input<typeof snapshotAccept>;

/** An accepted snapshot of a run: where it goes and where to download its actual. */
export const baseline = z.object({
  testId: id,
  name: z.string(),
  snapshotPath: z.string(),
  actual: id,
  /** A signed download URL of the actual, like artifact URLs. */
  url: z.string(),
  sha256: z.string().nullable(),
  acceptance: acceptance,
});
export type Baseline = z.infer<typeof baseline>;
export const baselineList = z.object({ data: z.array(baseline) });
