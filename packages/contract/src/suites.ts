import { z } from 'zod';
import { id, LIMITS, timestamp, title } from './common.js';

export const suiteUpsert = z.object({
  runId: id,
  projectId: id,
  title,
  filePath: z.string().max(LIMITS.titleChars).optional(),
  parentSuiteId: id.nullable().optional(),
});
export type SuiteUpsert = z.input<typeof suiteUpsert>;

export const suite = z.object({
  id,
  runId: id,
  projectId: id,
  title: z.string(),
  filePath: z.string().nullable(),
  parentSuiteId: id.nullable(),
  createdAt: timestamp,
});
export type Suite = z.infer<typeof suite>;

export interface SuiteNode {
  id: string;
  title: string;
  filePath: string | null;
  parentSuiteId: string | null;
  createdAt: string;
  children: SuiteNode[];
}
export const suiteNode: z.ZodType<SuiteNode> = z.lazy(() =>
  z.object({
    id,
    title: z.string(),
    filePath: z.string().nullable(),
    parentSuiteId: id.nullable(),
    createdAt: timestamp,
    children: z.array(suiteNode),
  }),
).meta({ id: 'SuiteNode' });
export const suiteListQuery = z.object({ runId: id, projectId: id });
export type SuiteListQuery = z.input<typeof suiteListQuery>;
export const suiteTree = z.object({ data: z.array(suiteNode) });

/**
 * One suite of POST /test-suites/batch: the fields of POST /test-suites, plus `parentIndex`, the
 * position of an earlier suite of the same batch to nest under (its id is not known yet). Give
 * `parentSuiteId` (a stored suite) or `parentIndex`, not both.
 */
export const suiteBatchItem = suiteUpsert.extend({
  parentIndex: z.number().int().min(0).max(LIMITS.batchMax - 1).optional(),
});
export type SuiteBatchItem = z.input<typeof suiteBatchItem>;
export const suiteBatchUpsert = z.object({ suites: z.array(suiteBatchItem).min(1).max(LIMITS.batchMax) });
export type SuiteBatchUpsert = z.input<typeof suiteBatchUpsert>;
/** The stored suites in request order (an item repeating an earlier one answers the same suite). */
export const suiteBatchResult = z.object({ data: z.array(suite) });
