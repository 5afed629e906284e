import { z } from 'zod';
import { id, queryBool, timestamp } from './common.js';

export const flakinessQuery = z.object({
  projectId: id,
  minScore: z.coerce.number().min(0).max(1).optional(),
  quarantined: queryBool.optional(),
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

export const quarantineUpdate = z.object({ testId: id, projectId: id, isQuarantined: z.boolean() });
export type QuarantineUpdate = z.input<typeof quarantineUpdate>;
export const quarantineResult = z.object({ testId: id, isQuarantined: z.boolean(), updatedAt: timestamp });
