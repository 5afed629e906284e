import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { annotation, attemptErrorInput, attemptInput, LIMITS, locationInput, stepInput, testBatchCreate, testCreate, testErrorInput, textAttachmentInput, TRUNCATION_MARKER } from '@testreport/contract';
import { FAST_PARSE_FIELDS, FAST_PARSE_LIMITS, fastTestBatchCreate, fastTestCreate } from './fastBodies.js';

/** The object schema inside optional/nullable/default/lazy/pipe wrappers. */
function objectKeys(schema: z.ZodType): string[] {
  let s = schema as unknown as { _zod: { def: Record<string, unknown> } };
  for (let i = 0; i < 20; i++) {
    const def = s._zod.def;
    if (def.type === 'object') return Object.keys(def.shape as object);
    if (def.type === 'lazy') s = (def.getter as () => typeof s)();
    else if (def.type === 'pipe') s = (def.in as typeof s)._zod.def.type === 'transform' ? (def.out as typeof s) : (def.in as typeof s);
    else if (def.type === 'array') s = def.element as typeof s;
    else s = def.innerType as typeof s;
  }
  throw new Error('no object schema found');
}

const ID = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';

/** A reporter's body: every field, nested steps, an error. */
function fullTest(i: number): Record<string, unknown> {
  return {
    runId: ID,
    projectId: ID.replace('b', 'c'),
    title: `does thing ${i}`,
    fullTitle: `chromium > a.spec.ts > area > does thing ${i}`,
    filePath: 'tests/a.spec.ts',
    lineNumber: 10 + i,
    status: ['passed', 'failed', 'skipped', 'flaky'][i % 4],
    duration: 123.5 + i,
    retries: i % 2,
    attempt: 0,
    isFlaky: i % 4 === 3,
    tags: ['@smoke', '@checkout'],
    annotations: [{ type: 'issue', description: 'https://example.com/1' }, { type: 'slow' }],
    error: i % 4 === 1 ? { message: 'expect failed', stack: 'Error: expect failed\n    at a.spec.ts:3:5', expected: '"a"', actual: '"b"' } : null,
    steps: [
      { title: 'Before Hooks', category: 'hook', duration: 5, steps: [{ title: 'page', category: 'fixture', duration: 4 }] },
      { title: 'page.goto(/x)', category: 'action', status: 'failed', duration: 40, error: { message: 'timeout' }, location: { file: 'tests/a.spec.ts', line: 4, column: 9 } },
      { title: 'expect.toBeVisible', category: 'assertion', error: null, steps: [] },
    ],
    stdout: 'hello\n',
    stderr: '',
    attempts: [
      {
        retry: 0, status: 'failed', duration: 50, startedAt: '2026-01-02T03:04:05.678Z',
        errors: [
          { message: 'expect failed', stack: 'Error: expect failed\n    at a.spec.ts:3:5', location: { file: 'tests/a.spec.ts', line: 3, column: 5 }, snippet: '> 3 | expect(1).toBe(2)\n    |           ^' },
          { message: 'second' },
        ],
        steps: [{ title: 'click', category: 'action', location: { file: 'tests/a.spec.ts', line: 2, column: 1 } }],
        stdout: 'out', stderr: 'err', annotations: [{ type: 'issue' }],
        attachments: [{ name: 'error-context', contentType: 'text/markdown', body: '- heading "x"' }],
      },
      { retry: 1, status: 'passed', duration: 20 },
    ],
  };
}

const clone = <T>(v: T): T => structuredClone(v);

/** The invariant: when the fast path answers, zod accepts the body and answers the same, in the same key order. */
function agrees(schema: z.ZodType, fast: (v: unknown) => unknown, body: unknown): 'fast' | 'zod' {
  const out = fast(clone(body));
  if (out === undefined) return 'zod';
  const ref = schema.safeParse(clone(body));
  expect(ref.success, `fast path accepted a body zod refuses: ${JSON.stringify(body).slice(0, 300)}`).toBe(true);
  expect(out).toStrictEqual(ref.data);
  expect(JSON.stringify(out)).toBe(JSON.stringify(ref.data));
  return 'fast';
}

/** Replacement values for one field: wrong types, empties, boundaries either side of each limit. */
function oddValues(): unknown[] {
  const s = (n: number) => 'x'.repeat(n);
  return [
    undefined, null, true, false, 0, -0, -1, 1.5, 2 ** 53, 2 ** 53 - 1, -1e-9, 1e308, '', 'x', 'passed', 'flaky', 'hook', 'failed', 'bogus',
    s(FAST_PARSE_LIMITS.idChars), s(FAST_PARSE_LIMITS.idChars + 1), s(LIMITS.nameChars), s(LIMITS.nameChars + 1), s(LIMITS.titleChars), s(LIMITS.titleChars + 1),
    s(FAST_PARSE_LIMITS.annotationDescriptionChars), s(FAST_PARSE_LIMITS.annotationDescriptionChars + 1), s(LIMITS.errorTextBytes + 5),
    `${s(LIMITS.titleChars - TRUNCATION_MARKER.length - 1)}\ud83d\ude00${s(10)}`,
    [], [1], ['a'], [''], [null], [{}], {}, { message: 'm' }, { message: 1 }, { message: 'm', extra: 1 }, { type: 'a' }, { title: 't', category: 'hook' },
  ];
}

/** Every path to a scalar or container in a body (so each can be replaced or removed). */
function pathsOf(v: unknown, prefix: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  if (Array.isArray(v)) v.forEach((x, i) => { out.push([...prefix, i]); pathsOf(x, [...prefix, i], out); });
  else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) { out.push([...prefix, k]); pathsOf(x, [...prefix, k], out); }
  return out;
}
function setAt(root: unknown, path: (string | number)[], value: unknown) {
  const copy = clone(root) as Record<string | number, unknown>;
  let cur = copy;
  for (const p of path.slice(0, -1)) cur = cur[p] as typeof cur;
  const last = path[path.length - 1];
  if (value === undefined) {
    if (Array.isArray(cur)) cur.splice(last as number, 1);
    else delete cur[last];
  } else cur[last] = value;
  return copy;
}

describe('fast body parsers of POST /tests and POST /tests/batch', () => {
  it('know every field of the contract\'s schemas, in their order', () => {
    expect(objectKeys(testCreate)).toEqual(FAST_PARSE_FIELDS.test);
    expect(objectKeys(stepInput)).toEqual(FAST_PARSE_FIELDS.step);
    expect(objectKeys((stepInput as unknown as { unwrap(): z.ZodObject }).unwrap().shape.error as z.ZodType)).toEqual(FAST_PARSE_FIELDS.stepError);
    expect(objectKeys(testErrorInput)).toEqual(FAST_PARSE_FIELDS.error);
    expect(objectKeys(annotation)).toEqual(FAST_PARSE_FIELDS.annotation);
    expect(objectKeys(testBatchCreate)).toEqual(FAST_PARSE_FIELDS.batch);
    expect(objectKeys(locationInput)).toEqual(FAST_PARSE_FIELDS.location);
    expect(objectKeys(attemptInput)).toEqual(FAST_PARSE_FIELDS.attempt);
    expect(objectKeys(attemptErrorInput)).toEqual(FAST_PARSE_FIELDS.attemptError);
    expect(objectKeys(textAttachmentInput)).toEqual(FAST_PARSE_FIELDS.textAttachment);
  });

  it('take the fast path for reporters\' bodies and give zod\'s result', () => {
    for (let i = 0; i < 8; i++) expect(agrees(testCreate, fastTestCreate, fullTest(i))).toBe('fast');
    const minimal = { runId: 'r', projectId: 'p', title: 't', fullTitle: 'f', status: 'passed', duration: 0 };
    expect(agrees(testCreate, fastTestCreate, minimal)).toBe('fast');
    expect(agrees(testCreate, fastTestCreate, { ...minimal, extra: 1, __proto__: 2, steps: [{ title: 's', category: 'action', extra: true }] })).toBe('fast');
    expect(agrees(testBatchCreate, fastTestBatchCreate, { tests: Array.from({ length: LIMITS.batchMax }, (_, i) => fullTest(i)), other: 1 })).toBe('fast');
    // Attempts: a repeated retry, an offset timestamp and too many tries are zod's to word or normalise.
    const tries = fullTest(1).attempts as Record<string, unknown>[];
    expect(agrees(testCreate, fastTestCreate, { ...minimal, attempts: [tries[0], { ...tries[1], retry: 0 }] })).toBe('zod');
    expect(agrees(testCreate, fastTestCreate, { ...minimal, attempts: [{ ...tries[1], startedAt: '2026-01-02T05:04:05+02:00' }] })).toBe('zod');
    expect(agrees(testCreate, fastTestCreate, { ...minimal, attempts: Array.from({ length: LIMITS.attemptsMax + 1 }, (_, i) => ({ ...tries[1], retry: i })) })).toBe('zod');
    expect(agrees(testCreate, fastTestCreate, { ...minimal, attempts: Array.from({ length: LIMITS.attemptsMax }, (_, i) => ({ ...tries[1], retry: i })) })).toBe('fast');
    const long = { ...minimal, title: 'x'.repeat(5000), stdout: 'o'.repeat(LIMITS.outputBytes + 1), error: { message: 'm'.repeat(LIMITS.errorTextBytes + 1) } };
    expect(agrees(testCreate, fastTestCreate, long)).toBe('fast');
  });

  it('never accept what zod refuses, nor answer differently, whatever one field is replaced by', () => {
    const body = fullTest(1);
    let fast = 0;
    let zod = 0;
    for (const path of pathsOf(body)) {
      for (const value of oddValues()) {
        const r = agrees(testCreate, fastTestCreate, setAt(body, path, value));
        if (r === 'fast') fast++;
        else zod++;
        // The same test inside a batch.
        agrees(testBatchCreate, fastTestBatchCreate, { tests: [fullTest(0), setAt(body, path, value)] });
      }
    }
    expect(fast).toBeGreaterThan(100);
    expect(zod).toBeGreaterThan(100);
  });

  it('leave limits and odd shapes to zod', () => {
    const t = fullTest(0);
    const many = (n: number, make: (i: number) => unknown) => Array.from({ length: n }, (_, i) => make(i));
    const cases: unknown[] = [
      null, [], 'x', 1, { tests: [] }, { tests: null }, { tests: {} }, { tests: many(LIMITS.batchMax + 1, () => t) }, { tests: [t, null] },
      { tests: [{ ...t, tags: many(FAST_PARSE_LIMITS.tagsMax + 1, (i) => `t${i}`) }] },
      { tests: [{ ...t, tags: many(FAST_PARSE_LIMITS.tagsMax, (i) => `t${i}`) }] },
      { tests: [{ ...t, annotations: many(FAST_PARSE_LIMITS.annotationsMax + 1, () => ({ type: 'a' })) }] },
      { tests: [{ ...t, annotations: many(FAST_PARSE_LIMITS.annotationsMax, () => ({ type: 'a' })) }] },
      { tests: [{ ...t, steps: many(FAST_PARSE_LIMITS.stepsOfTestMax + 1, () => ({ title: 's', category: 'hook' })) }] },
      { tests: [{ ...t, steps: many(FAST_PARSE_LIMITS.stepsOfTestMax, () => ({ title: 's', category: 'hook' })) }] },
      { tests: [{ ...t, steps: [{ title: 's', category: 'hook', steps: many(FAST_PARSE_LIMITS.stepsOfStepMax + 1, () => ({ title: 's', category: 'hook' })) }] }] },
      { tests: [{ ...t, steps: [{ title: 's', category: 'hook', steps: many(FAST_PARSE_LIMITS.stepsOfStepMax, () => ({ title: 's', category: 'hook' })) }] }] },
    ];
    for (const depth of [LIMITS.stepDepth - 1, LIMITS.stepDepth, LIMITS.stepDepth + 1, LIMITS.stepDepth + 2, 1000]) {
      let steps: unknown[] = [{ title: 'leaf', category: 'action' }];
      for (let d = 1; d < depth; d++) steps = [{ title: `d${d}`, category: 'hook', steps }];
      cases.push({ tests: [{ ...t, steps }] });
      cases.push({ tests: [{ ...t, steps: [{ title: 'empty below', category: 'hook', steps: (steps[0] as { steps?: unknown[] }).steps ?? [] }] }] });
    }
    const answers = cases.map((c) => agrees(testBatchCreate, fastTestBatchCreate, c));
    expect(answers.filter((a) => a === 'fast').length).toBeGreaterThan(3);
    for (const c of cases) if (c !== null && typeof c === 'object' && 'tests' in c && Array.isArray(c.tests) && c.tests.length === 1) agrees(testCreate, fastTestCreate, c.tests[0]);
  });
});
