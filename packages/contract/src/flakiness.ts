import { z } from 'zod';
import { id, queryBool, timestamp } from './common.js';
import { ownerQuery } from './tests.js';

export const flakinessQuery = z.object({
  projectId: id,
  minScore: z.coerce.number().min(0).max(1).optional(),
  quarantined: queryBool.optional(),
  owner: ownerQuery.optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});
export type FlakinessQuery = z.input<typeof flakinessQuery>;

export const flakinessEntry = z.object({
  testId: id,
  caseId: id,
  testTitle: z.string(),
  fullTitle: z.string(),
  filePath: z.string().nullable(),
  flakinessScore: z.number(),
  totalRuns: z.number().int(),
  flakyRuns: z.number().int(),
  lastFlakyAt: timestamp.nullable(),
  isQuarantined: z.boolean(),
  /** Failed in each of its last `autoQuarantineMinRuns` results on the default branch: broken, not flaky, never auto-quarantined. */
  isBroken: z.boolean(),
  /** CODEOWNERS owners of the case's latest result. */
  owners: z.array(z.string()),
});
export type FlakinessEntry = z.infer<typeof flakinessEntry>;

export const flakinessSummary = z.object({
  totalFlakyTests: z.number().int(),
  quarantinedTests: z.number().int(),
  averageFlakinessScore: z.number(),
});

export const flakinessList = z.object({
  data: z.array(flakinessEntry),
  summary: flakinessSummary,
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});

export const quarantineUpdate = z.object({
  testId: id,
  projectId: id,
  isQuarantined: z.boolean(),
  /** Why, for the audit trail; default "quarantined by hand" / "released by hand". */
  reason: z.string().max(500).optional(),
});
export type QuarantineUpdate = z.input<typeof quarantineUpdate>;
export const quarantineResult = z.object({ testId: id, isQuarantined: z.boolean(), updatedAt: timestamp });

export const QUARANTINE_ACTIONS = ['quarantined', 'released'] as const;
export const ACTOR_TYPES = ['user', 'apiKey', 'policy'] as const;
/** Decisions §13: one per quarantine change, by hand or by policy. */
export const quarantineEvent = z.object({
  action: z.enum(QUARANTINE_ACTIONS),
  /** Who did it: a user (id, name), an API key (id, its name) or a policy (id `auto-quarantine` or `auto-release`). */
  actor: z.object({ type: z.enum(ACTOR_TYPES), id: z.string(), name: z.string() }),
  reason: z.string(),
  /** The case's flakiness score when it happened. */
  score: z.number(),
  at: timestamp,
});
export type QuarantineEvent = z.infer<typeof quarantineEvent>;
export const quarantineEventsQuery = z.object({ projectId: id });
export const quarantineEventList = z.object({ data: z.array(quarantineEvent) });
