import { z } from 'zod';
import { cappedText, durationMs, id, LIMITS, pageQuery, paged, list, timestamp, title, truncate } from './common.js';

export const TEST_STATUSES = ['passed', 'failed', 'skipped', 'flaky'] as const;
export const testStatus = z.enum(TEST_STATUSES);
export const STEP_CATEGORIES = ['action', 'assertion', 'hook', 'fixture'] as const;
export const stepCategory = z.enum(STEP_CATEGORIES);
export const STEP_STATUSES = ['passed', 'failed', 'skipped'] as const;

const errorText = cappedText(LIMITS.errorTextBytes);

export const testErrorInput = z.object({
  message: errorText,
  stack: errorText.optional(),
  expected: errorText.optional(),
  actual: errorText.optional(),
});
export const testError = z.object({
  message: z.string(),
  stack: z.string().optional(),
  expected: z.string().optional(),
  actual: z.string().optional(),
});
export type TestError = z.infer<typeof testError>;

/** Steps nest (decisions §4) up to LIMITS.stepDepth levels, so a hostile body cannot blow the stack. */
export interface StepInput {
  title: string;
  category: (typeof STEP_CATEGORIES)[number];
  status?: (typeof STEP_STATUSES)[number];
  duration?: number;
  error?: { message: string } | null;
  steps?: StepInput[];
}
export interface Step {
  title: string;
  category: (typeof STEP_CATEGORIES)[number];
  status: (typeof STEP_STATUSES)[number];
  duration: number;
  error: { message: string } | null;
  steps?: Step[];
}

export const stepInput: z.ZodType<Step, StepInput> = z.lazy(() =>
  z.object({
    title: title,
    category: stepCategory,
    status: z.enum(STEP_STATUSES).default('passed'),
    duration: durationMs.default(0),
    error: z.object({ message: errorText }).nullable().default(null),
    steps: z.array(stepInput).max(5_000).optional(),
  }),
).meta({ id: 'StepInput' });
/** Depth of the deepest step (1 = no children), measured with a stack: zod would recurse instead. */
function stepDepth(steps: unknown): number {
  let max = 0;
  const stack: [unknown, number][] = [[steps, 1]];
  while (stack.length > 0) {
    const [list, depth] = stack.pop()!;
    if (!Array.isArray(list)) continue;
    for (const s of list) {
      if (s === null || typeof s !== 'object') continue;
      max = Math.max(max, depth);
      if (depth <= LIMITS.stepDepth) stack.push([(s as { steps?: unknown }).steps, depth + 1]);
    }
  }
  return max;
}

/**
 * The `steps` of a test: nesting is checked before the recursive schema runs, so a hostile body gets
 * a 400 naming `steps` instead of overflowing the stack. The preprocess step leaves the body as it
 * is; its parameter type keeps `StepInput[]` as the input type the SDK and reporter see.
 */
const stepsOfTest = z.preprocess((value: StepInput[], ctx) => {
  if (stepDepth(value) > LIMITS.stepDepth) {
    ctx.addIssue({ code: 'custom', message: `steps nest more than ${LIMITS.stepDepth} levels deep`, params: { reason: 'out_of_range' }, input: value });
  }
  return value;
}, z.array(stepInput).max(10_000));

export const step: z.ZodType<Step> = z.lazy(() =>
  z.object({
    title: z.string(),
    category: stepCategory,
    status: z.enum(STEP_STATUSES),
    duration: z.number(),
    error: z.object({ message: z.string() }).nullable(),
    steps: z.array(step).optional(),
  }),
).meta({ id: 'Step' });

export const annotation = z.object({
  type: z.string().min(1).max(LIMITS.nameChars),
  description: z.string().max(LIMITS.titleChars * 4).default(''),
});

export const testCreate = z.object({
  runId: id,
  projectId: id,
  title,
  fullTitle: title,
  filePath: z.string().max(LIMITS.titleChars).optional(),
  lineNumber: z.number().int().nonnegative().optional(),
  status: testStatus,
  duration: durationMs,
  retries: z.number().int().nonnegative().optional(),
  attempt: z.number().int().nonnegative().optional(),
  isFlaky: z.boolean().optional(),
  tags: z.array(z.string().min(1).max(LIMITS.nameChars)).max(100).optional(),
  annotations: z.array(annotation).max(100).optional(),
  error: testErrorInput.nullable().optional(),
  steps: stepsOfTest.optional(),
  stdout: cappedText(LIMITS.outputBytes).optional(),
  stderr: cappedText(LIMITS.outputBytes).optional(),
});
export type TestCreate = z.input<typeof testCreate>;
export type TestCreateParsed = z.output<typeof testCreate>;

export const testBatchCreate = z.object({ tests: z.array(testCreate).min(1).max(LIMITS.batchMax) });
export type TestBatchCreate = z.input<typeof testBatchCreate>;

export const test = z.object({
  id,
  runId: id,
  projectId: id,
  title: z.string(),
  fullTitle: z.string(),
  filePath: z.string().nullable(),
  lineNumber: z.number().nullable(),
  status: testStatus,
  duration: z.number(),
  retries: z.number(),
  attempt: z.number(),
  isFlaky: z.boolean(),
  tags: z.array(z.string()),
  annotations: z.array(z.object({ type: z.string(), description: z.string() })),
  error: testError.nullable(),
  stdout: z.string().nullable(),
  stderr: z.string().nullable(),
  /** The owners CODEOWNERS gives the test's file (decisions §13); [] when the run sent none or no rule matches. */
  owners: z.array(z.string()),
  createdAt: timestamp,
});
export type Test = z.infer<typeof test>;

export const testCreated = test.pick({
  id: true, runId: true, projectId: true, title: true, fullTitle: true, status: true, duration: true, isFlaky: true, createdAt: true,
});
export type TestCreated = z.infer<typeof testCreated>;
export const testBatchCreated = z.object({ data: z.array(testCreated) });

export const testListItem = test.pick({
  id: true, runId: true, title: true, fullTitle: true, filePath: true, status: true, duration: true, isFlaky: true, error: true, owners: true, createdAt: true,
});
/** `owner=@acme/checkout`: only tests this owner owns (exact, as CODEOWNERS spells it). */
export const ownerQuery = z.string().trim().min(1).max(LIMITS.nameChars);
export type TestListItem = z.infer<typeof testListItem>;
export const testListQuery = z.object({
  projectId: id,
  runId: id.optional(),
  status: testStatus.optional(),
  search: z.string().min(1).max(LIMITS.titleChars).optional(),
  owner: ownerQuery.optional(),
  ...pageQuery,
});
export type TestListQuery = z.input<typeof testListQuery>;
export const testList = paged(testListItem);

export const testSteps = list(step);

export const historyItem = z.object({
  id,
  runId: id,
  status: testStatus,
  duration: z.number(),
  branch: z.string().nullable(),
  commitSha: z.string().nullable(),
  createdAt: timestamp,
});
export const testHistory = z.object({ data: z.array(historyItem), total: z.number().int() });
export { truncate };
