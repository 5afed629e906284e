import type { z } from 'zod';
import {
  ATTEMPT_STATUSES,
  LIMITS,
  STEP_CATEGORIES,
  STEP_STATUSES,
  TEST_STATUSES,
  testBatchCreate,
  testCreate,
  truncate,
  type Step,
  type TestCreateParsed,
} from '@testreport/contract';

/**
 * A hand-written fast path for the bodies of POST /tests and POST /tests/batch, the hot path of
 * ingestion: zod spent ~18 µs per test on them (lazy step schemas, a pipe per title, defaults per
 * step), most of the server's JavaScript per stored test.
 *
 * It never decides alone: it returns the very value zod would return for a body it recognises as
 * plainly valid, and `undefined` for anything else (any doubt, any bad field, any limit reached),
 * which then goes to the zod schema as before, so what is accepted or rejected, and every 400 with
 * its field and reason, stays zod's. fastBodies.test.ts checks "fast accepts ⇒ zod accepts with the
 * same output" on valid, boundary and broken bodies, and that the schemas still have the fields
 * known here (a field added to the contract must be added here too, or the test fails).
 */

/** The fields of each object, in the schemas' order (zod's output order). */
export const FAST_PARSE_FIELDS = {
  test: ['runId', 'projectId', 'title', 'fullTitle', 'filePath', 'lineNumber', 'status', 'duration', 'retries', 'attempt', 'isFlaky', 'tags', 'annotations', 'error', 'steps', 'stdout', 'stderr', 'attempts'],
  step: ['title', 'category', 'status', 'duration', 'error', 'location', 'steps'],
  location: ['file', 'line', 'column'],
  attempt: ['retry', 'status', 'duration', 'startedAt', 'errors', 'steps', 'stdout', 'stderr', 'annotations', 'attachments'],
  attemptError: ['message', 'stack', 'location', 'snippet'],
  textAttachment: ['name', 'contentType', 'body'],
  stepError: ['message'],
  error: ['message', 'stack', 'expected', 'actual'],
  annotation: ['type', 'description'],
  batch: ['tests'],
} as const;

/** zod's limits on these bodies (contract/src/tests.ts); the test checks each boundary against zod. */
export const FAST_PARSE_LIMITS = {
  idChars: 100,
  tagsMax: 100,
  annotationsMax: 100,
  annotationDescriptionChars: LIMITS.titleChars * 4,
  stepsOfTestMax: 10_000,
  stepsOfStepMax: 5_000,
  retryMax: 1_000,
} as const;

const testStatuses = new Set<string>(TEST_STATUSES);
const stepCategories = new Set<string>(STEP_CATEGORIES);
const stepStatuses = new Set<string>(STEP_STATUSES);
const attemptStatuses = new Set<string>(ATTEMPT_STATUSES);
/** `toISOString()`'s form, the one timestamp a reporter sends; zod turns any other valid form into it. */
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isId = (v: unknown): v is string => typeof v === 'string' && v.length >= 1 && v.length <= FAST_PARSE_LIMITS.idChars;
const isTitle = (v: unknown): v is string => typeof v === 'string' && v.length >= 1;
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const isDuration = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

/** Marks a body the fast path leaves to zod. */
const NO = Symbol('to zod');

function errorText(v: unknown): string | typeof NO {
  return typeof v === 'string' ? truncate(v, LIMITS.errorTextBytes) : NO;
}

function location(v: unknown): { file: string; line: number; column: number } | typeof NO {
  if (!isObject(v)) return NO;
  const { file, line, column } = v;
  if (!isTitle(file) || !isCount(line) || !isCount(column)) return NO;
  return { file: truncate(file, LIMITS.titleChars), line, column };
}

function annotationList(annotations: unknown): { type: string; description: string }[] | typeof NO {
  if (!Array.isArray(annotations) || annotations.length > FAST_PARSE_LIMITS.annotationsMax) return NO;
  const list: { type: string; description: string }[] = new Array(annotations.length);
  for (let i = 0; i < annotations.length; i++) {
    const a = annotations[i];
    if (!isObject(a)) return NO;
    const { type, description } = a;
    if (typeof type !== 'string' || type.length < 1 || type.length > LIMITS.nameChars) return NO;
    if (description !== undefined && (typeof description !== 'string' || description.length > FAST_PARSE_LIMITS.annotationDescriptionChars)) return NO;
    list[i] = { type, description: description ?? '' };
  }
  return list;
}

function attemptErrors(list: unknown): Obj[] | typeof NO {
  if (!Array.isArray(list) || list.length > LIMITS.attemptErrorsMax) return NO;
  const out: Obj[] = new Array(list.length);
  for (let i = 0; i < list.length; i++) {
    const e = list[i];
    if (!isObject(e)) return NO;
    const message = errorText(e.message);
    if (message === NO) return NO;
    const err: Obj = { message };
    if (e.stack !== undefined) {
      const stack = errorText(e.stack);
      if (stack === NO) return NO;
      err.stack = stack;
    }
    if (e.location !== undefined) {
      const loc = location(e.location);
      if (loc === NO) return NO;
      err.location = loc;
    }
    if (e.snippet !== undefined) {
      if (typeof e.snippet !== 'string') return NO;
      err.snippet = truncate(e.snippet, LIMITS.snippetChars);
    }
    out[i] = err;
  }
  return out;
}

function textAttachments(list: unknown): Obj[] | typeof NO {
  if (!Array.isArray(list) || list.length > LIMITS.textAttachmentsMax) return NO;
  const out: Obj[] = new Array(list.length);
  for (let i = 0; i < list.length; i++) {
    const a = list[i];
    if (!isObject(a)) return NO;
    const { name, contentType, body } = a;
    if (!isTitle(name) || typeof contentType !== 'string' || contentType.length < 1 || contentType.length > LIMITS.nameChars || typeof body !== 'string') return NO;
    out[i] = { name: truncate(name, LIMITS.nameChars), contentType, body: truncate(body, LIMITS.textAttachmentChars) };
  }
  return out;
}

/** `steps`, `stdout` and `stderr` of a test or of a try: the same fields, in this order, in both schemas. False: leave it to zod. */
function stepsAndOutput(src: Obj, out: Obj): boolean {
  if (src.steps !== undefined) {
    const parsed = steps(src.steps, FAST_PARSE_LIMITS.stepsOfTestMax, 1);
    if (parsed === NO) return false;
    out.steps = parsed;
  }
  for (const key of ['stdout', 'stderr'] as const) {
    const v = src[key];
    if (v === undefined) continue;
    if (typeof v !== 'string') return false;
    out[key] = truncate(v, LIMITS.outputBytes);
  }
  return true;
}

function attempts(list: unknown): Obj[] | typeof NO {
  if (!Array.isArray(list) || list.length > LIMITS.attemptsMax) return NO;
  const out: Obj[] = new Array(list.length);
  const retries = new Set<number>();
  for (let i = 0; i < list.length; i++) {
    const a = list[i];
    if (!isObject(a)) return NO;
    const { retry, status, duration, startedAt, errors, annotations, attachments } = a;
    // A repeated retry is a 400 that zod words.
    if (!isCount(retry) || retry > FAST_PARSE_LIMITS.retryMax || retries.has(retry)) return NO;
    retries.add(retry);
    if (typeof status !== 'string' || !attemptStatuses.has(status) || !isDuration(duration)) return NO;
    const at: Obj = { retry, status, duration };
    if (startedAt !== undefined) {
      if (typeof startedAt !== 'string' || !ISO_UTC.test(startedAt) || Number.isNaN(Date.parse(startedAt)) || new Date(startedAt).toISOString() !== startedAt) return NO;
      at.startedAt = startedAt;
    }
    const errs = attemptErrors(errors === undefined ? [] : errors);
    if (errs === NO) return NO;
    at.errors = errs;
    if (!stepsAndOutput(a, at)) return NO;
    if (annotations !== undefined) {
      const parsed = annotationList(annotations);
      if (parsed === NO) return NO;
      at.annotations = parsed;
    }
    if (attachments !== undefined) {
      const parsed = textAttachments(attachments);
      if (parsed === NO) return NO;
      at.attachments = parsed;
    }
    out[i] = at;
  }
  return out;
}

function steps(list: unknown, max: number, depth: number): Step[] | typeof NO {
  // Deeper than the limit is a 400 that zod words; depth is bounded, so recursion is safe.
  if (!Array.isArray(list) || list.length > max || depth > LIMITS.stepDepth) return NO;
  const out: Step[] = new Array(list.length);
  for (let i = 0; i < list.length; i++) {
    const s = list[i];
    if (!isObject(s)) return NO;
    const { title, category, status, duration, error, location: where, steps: children } = s;
    if (!isTitle(title) || typeof category !== 'string' || !stepCategories.has(category)) return NO;
    const step: Step = { title: truncate(title, LIMITS.titleChars), category: category as Step['category'], status: 'passed', duration: 0, error: null };
    if (status !== undefined) {
      if (typeof status !== 'string' || !stepStatuses.has(status)) return NO;
      step.status = status as Step['status'];
    }
    if (duration !== undefined) {
      if (!isDuration(duration)) return NO;
      step.duration = duration;
    }
    if (error !== undefined && error !== null) {
      if (!isObject(error)) return NO;
      const message = errorText(error.message);
      if (message === NO) return NO;
      step.error = { message };
    }
    if (where !== undefined) {
      const loc = location(where);
      if (loc === NO) return NO;
      step.location = loc;
    }
    if (children !== undefined) {
      const nested = steps(children, FAST_PARSE_LIMITS.stepsOfStepMax, depth + 1);
      if (nested === NO) return NO;
      step.steps = nested;
    }
    out[i] = step;
  }
  return out;
}

function test(t: unknown): TestCreateParsed | typeof NO {
  if (!isObject(t)) return NO;
  const { runId, projectId, title, fullTitle, filePath, lineNumber, status, duration, retries, attempt, isFlaky, tags, annotations, error, attempts: tries } = t;
  if (!isId(runId) || !isId(projectId) || !isTitle(title) || !isTitle(fullTitle)) return NO;
  if (typeof status !== 'string' || !testStatuses.has(status) || !isDuration(duration)) return NO;
  const out: Obj = { runId, projectId, title: truncate(title, LIMITS.titleChars), fullTitle: truncate(fullTitle, LIMITS.titleChars) };
  if (filePath !== undefined) {
    if (typeof filePath !== 'string' || filePath.length > LIMITS.titleChars) return NO;
    out.filePath = filePath;
  }
  if (lineNumber !== undefined) {
    if (!isCount(lineNumber)) return NO;
    out.lineNumber = lineNumber;
  }
  out.status = status;
  out.duration = duration;
  if (retries !== undefined) {
    if (!isCount(retries)) return NO;
    out.retries = retries;
  }
  if (attempt !== undefined) {
    if (!isCount(attempt)) return NO;
    out.attempt = attempt;
  }
  if (isFlaky !== undefined) {
    if (typeof isFlaky !== 'boolean') return NO;
    out.isFlaky = isFlaky;
  }
  if (tags !== undefined) {
    if (!Array.isArray(tags) || tags.length > FAST_PARSE_LIMITS.tagsMax) return NO;
    for (const tag of tags) if (typeof tag !== 'string' || tag.length < 1 || tag.length > LIMITS.nameChars) return NO;
    out.tags = tags.slice();
  }
  if (annotations !== undefined) {
    const list = annotationList(annotations);
    if (list === NO) return NO;
    out.annotations = list;
  }
  if (error !== undefined) {
    if (error === null) out.error = null;
    else {
      if (!isObject(error)) return NO;
      const message = errorText(error.message);
      if (message === NO) return NO;
      const e: Obj = { message };
      for (const key of ['stack', 'expected', 'actual'] as const) {
        const v = error[key];
        if (v === undefined) continue;
        const text = errorText(v);
        if (text === NO) return NO;
        e[key] = text;
      }
      out.error = e;
    }
  }
  if (!stepsAndOutput(t, out)) return NO;
  if (tries !== undefined) {
    const parsed = attempts(tries);
    if (parsed === NO) return NO;
    out.attempts = parsed;
  }
  return out as TestCreateParsed;
}

/** The POST /tests body as zod would parse it, or undefined: let zod decide. */
export function fastTestCreate(value: unknown): TestCreateParsed | undefined {
  const out = test(value);
  return out === NO ? undefined : out;
}

/** The POST /tests/batch body as zod would parse it, or undefined: let zod decide. */
export function fastTestBatchCreate(value: unknown): { tests: TestCreateParsed[] } | undefined {
  if (!isObject(value)) return undefined;
  const list = value.tests;
  if (!Array.isArray(list) || list.length < 1 || list.length > LIMITS.batchMax) return undefined;
  const tests: TestCreateParsed[] = new Array(list.length);
  for (let i = 0; i < list.length; i++) {
    const t = test(list[i]);
    if (t === NO) return undefined;
    tests[i] = t;
  }
  return { tests };
}

/** Fast paths by body schema, for validateRequest. */
export const FAST_BODY_PARSERS = new Map<z.ZodType, (value: unknown) => unknown>([
  [testCreate, fastTestCreate],
  [testBatchCreate, fastTestBatchCreate],
]);
