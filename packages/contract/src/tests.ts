import { z } from 'zod';
import { TEST_STATUSES } from './values.js';
import { cappedText, durationMs, id, LIMITS, pageQuery, paged, list, queryBool, queryInt, timestamp, timestampInput, title, truncate } from './common.js';

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

/** Where in the suite's code a step ran or an error was thrown; `file` relative to the Playwright project's root when the reporter knows it. */
export const locationInput = z.object({
  file: z.string().min(1).transform((v) => truncate(v, LIMITS.titleChars)),
  line: z.number().int().nonnegative(),
  column: z.number().int().nonnegative(),
});
export const location = z.object({ file: z.string(), line: z.number().int(), column: z.number().int() }).meta({ id: 'Location' });
export interface Location { file: string; line: number; column: number }

/** Steps nest (docs/decisions.md §4) up to LIMITS.stepDepth levels, so a hostile body cannot blow the stack. */
export interface StepInput {
  title: string;
  category: (typeof STEP_CATEGORIES)[number];
  status?: (typeof STEP_STATUSES)[number];
  duration?: number;
  error?: { message: string } | null;
  location?: Location;
  steps?: StepInput[];
}
export interface Step {
  title: string;
  category: (typeof STEP_CATEGORIES)[number];
  status: (typeof STEP_STATUSES)[number];
  duration: number;
  error: { message: string } | null;
  location?: Location;
  steps?: Step[];
}

export const stepInput: z.ZodType<Step, StepInput> = z.lazy(() =>
  z.object({
    title: title,
    category: stepCategory,
    status: z.enum(STEP_STATUSES).default('passed'),
    duration: durationMs.default(0),
    error: z.object({ message: errorText }).nullable().default(null),
    location: locationInput.optional(),
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
    location: location.optional(),
    steps: z.array(step).optional(),
  }),
).meta({ id: 'Step' });

export const annotation = z.object({
  type: z.string().min(1).max(LIMITS.nameChars),
  description: z.string().max(LIMITS.titleChars * 4).default(''),
});

/**
 * One try of a test (docs/decisions.md §13 "Attempts of a test"): Playwright's `TestResult`, retry 0, 1, ….
 * `status` is the try's own (Playwright's words, `timedOut` and `interrupted` included); the
 * test's `status` stays its final outcome (`flaky` when a later try passed).
 */
export const ATTEMPT_STATUSES = ['passed', 'failed', 'timedOut', 'skipped', 'interrupted'] as const;
export const attemptStatus = z.enum(ATTEMPT_STATUSES);

export const attemptErrorInput = z.object({
  message: errorText,
  stack: errorText.optional(),
  location: locationInput.optional(),
  /** Playwright's code frame around the failing line (`>` marks it, `^` the column). */
  snippet: cappedText(LIMITS.snippetChars).optional(),
});

/** A text attachment (text/*, JSON, Markdown, Playwright's `error-context` page snapshot), kept inline and capped. */
export const textAttachmentInput = z.object({
  name: z.string().min(1).transform((v) => truncate(v, LIMITS.nameChars)),
  contentType: z.string().min(1).max(LIMITS.nameChars),
  body: cappedText(LIMITS.textAttachmentChars),
});

export const attemptInput = z.object({
  retry: z.number().int().nonnegative().max(1_000),
  status: attemptStatus,
  duration: durationMs,
  startedAt: timestampInput.optional(),
  errors: z.array(attemptErrorInput).max(LIMITS.attemptErrorsMax).default([]),
  steps: stepsOfTest.optional(),
  stdout: cappedText(LIMITS.outputBytes).optional(),
  stderr: cappedText(LIMITS.outputBytes).optional(),
  annotations: z.array(annotation).max(100).optional(),
  attachments: z.array(textAttachmentInput).max(LIMITS.textAttachmentsMax).optional(),
});
export type AttemptInput = z.input<typeof attemptInput>;
export type AttemptParsed = z.output<typeof attemptInput>;

/** The tries of one test: at most LIMITS.attemptsMax, each `retry` once. */
const attemptsOfTest = z.array(attemptInput).max(LIMITS.attemptsMax).superRefine((list, ctx) => {
  const seen = new Set<number>();
  list.forEach((a, i) => {
    if (seen.has(a.retry)) ctx.addIssue({ code: 'custom', path: [i, 'retry'], message: `retry ${a.retry} appears twice`, params: { reason: 'invalid_value' }, input: a.retry });
    seen.add(a.retry);
  });
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
  attempts: attemptsOfTest.optional(),
});
export type TestCreate = z.input<typeof testCreate>;
export type TestCreateParsed = z.output<typeof testCreate>;

export const testBatchCreate = z.object({ tests: z.array(testCreate).min(1).max(LIMITS.batchMax) });
export type TestBatchCreate = z.input<typeof testBatchCreate>;

export const attemptError = z.object({
  message: z.string(),
  stack: z.string().nullable(),
  location: location.nullable(),
  snippet: z.string().nullable(),
}).meta({ id: 'AttemptError' });
export type AttemptError = z.infer<typeof attemptError>;
export const textAttachment = z.object({ name: z.string(), contentType: z.string(), body: z.string() }).meta({ id: 'TextAttachment' });
export type TextAttachment = z.infer<typeof textAttachment>;

/** A try as GET /tests/:id returns it; its steps come from GET /tests/:id/steps?retry=N. */
export const attempt = z.object({
  retry: z.number().int(),
  status: attemptStatus,
  duration: z.number(),
  startedAt: timestamp.nullable(),
  errors: z.array(attemptError),
  stdout: z.string().nullable(),
  stderr: z.string().nullable(),
  annotations: z.array(z.object({ type: z.string(), description: z.string() })),
  attachments: z.array(textAttachment),
  /** Top-level steps of the try (their nested steps not counted). */
  stepCount: z.number().int(),
}).meta({ id: 'Attempt' });
export type Attempt = z.infer<typeof attempt>;

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
  /** The owners CODEOWNERS gives the test's file (docs/decisions.md §13); [] when the run sent none or no rule matches. */
  owners: z.array(z.string()),
  createdAt: timestamp,
});

/** GET /tests/:id: the test with its tries, in retry order (empty when the client sent none). */
export const testDetail = test.extend({ attempts: z.array(attempt) });
export type Test = z.infer<typeof test>;
export type TestDetail = z.infer<typeof testDetail>;

export const testCreated = test.pick({
  id: true, runId: true, projectId: true, title: true, fullTitle: true, status: true, duration: true, isFlaky: true, createdAt: true,
});
export type TestCreated = z.infer<typeof testCreated>;
export const testBatchCreated = z.object({ data: z.array(testCreated) });

export const testListItem = test.pick({
  id: true, runId: true, title: true, fullTitle: true, filePath: true, status: true, duration: true, isFlaky: true, error: true, owners: true, createdAt: true,
}).extend({
  /** The CI attempt of the run that stored this result (1 unless the CI build was re-run). */
  ciAttempt: z.number().int(),
});
/** `owner=@acme/checkout`: only tests this owner owns (exact, as CODEOWNERS spells it). */
export const ownerQuery = z.string().trim().min(1).max(LIMITS.nameChars);
export type TestListItem = z.infer<typeof testListItem>;
export const testListQuery = z.object({
  projectId: id,
  runId: id.optional(),
  status: testStatus.optional(),
  search: z.string().min(1).max(LIMITS.titleChars).optional(),
  /** With runId: also list the results that a later CI attempt of the run replaced (default: latest attempt only). */
  superseded: queryBool.optional(),
  owner: ownerQuery.optional(),
  ...pageQuery,
});
export type TestListQuery = z.input<typeof testListQuery>;
export const testList = paged(testListItem);

export const testSteps = list(step);
/** `retry`: the try whose steps to list; default the last. */
export const testStepsQuery = z.object({ retry: queryInt(0, 1_000).optional() });
export type TestStepsQuery = z.input<typeof testStepsQuery>;

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
