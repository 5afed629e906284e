import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { png, startTestServer, type TestServer } from '@testreport/server/testing';
import { LIMITS, NotFoundError, ValidationError, type TestCreate, type TestReportClient } from '@testreport/client';
import { clientFor } from './realServer.js';

/** Attempts of a test (docs/decisions.md §13) through the real server and the SDK, on SQLite or PostgreSQL (TESTREPORT_TEST_DB). */
let t: TestServer;
let sdk: TestReportClient;

beforeAll(async () => {
  t = await startTestServer();
  sdk = clientFor(t, t.apiKey);
});
afterAll(async () => {
  await t?.close();
});

const newRun = () => sdk.runs.create({ projectId: t.projectId, status: 'running', branch: 'main' });
const loc = (line: number) => ({ file: 'tests/cart.spec.ts', line, column: 5 });

/** A flaky test: two failing tries (the first with two soft-assertion errors), then a pass. */
const flaky = (runId: string): TestCreate => ({
  runId, projectId: t.projectId, title: 'adds items', fullTitle: 'cart > adds items', filePath: 'tests/cart.spec.ts', lineNumber: 3,
  status: 'flaky', duration: 30, retries: 2, attempt: 3, isFlaky: true,
  error: { message: 'Timed out' },
  attempts: [
    {
      retry: 0, status: 'failed', duration: 100, startedAt: '2026-01-02T03:04:05.000Z',
      errors: [
        { message: 'expect(received).toBe(expected)\n\nExpected: 2\nReceived: 1', stack: 'Error: x\n    at tests/cart.spec.ts:7:5', location: loc(7), snippet: '  6 |\n> 7 |     expect(1).toBe(2);\n    |               ^' },
        { message: 'second soft error', location: loc(8) },
      ],
      steps: [{ title: 'click add', category: 'action', status: 'failed', duration: 5, location: loc(6), error: { message: 'x' } }],
      stdout: 'try 1 out',
      attachments: [{ name: 'error-context', contentType: 'text/markdown', body: '# Page snapshot\n- button "Add"' }],
    },
    { retry: 1, status: 'timedOut', duration: 200, errors: [{ message: 'Timed out' }], stderr: 'try 2 err', annotations: [{ type: 'note', description: 'slow' }] },
    { retry: 2, status: 'passed', duration: 30, steps: [{ title: 'click add', category: 'action', duration: 4 }] },
  ],
});

describe('attempts of a test', () => {
  it('POST /tests/batch stores every try; GET /tests/:id returns them with all their errors, locations and snippets', async () => {
    const run = await newRun();
    const [made] = (await sdk.tests.createBatch([flaky(run.id)])).data;
    const got = await sdk.tests.get(made!.id);
    expect(got.status).toBe('flaky');
    expect(got.attempts.map((a) => [a.retry, a.status, a.duration])).toEqual([[0, 'failed', 100], [1, 'timedOut', 200], [2, 'passed', 30]]);
    expect(got.attempts[0]).toEqual({
      retry: 0, status: 'failed', duration: 100, startedAt: '2026-01-02T03:04:05.000Z',
      errors: [
        { message: 'expect(received).toBe(expected)\n\nExpected: 2\nReceived: 1', stack: 'Error: x\n    at tests/cart.spec.ts:7:5', location: loc(7), snippet: '  6 |\n> 7 |     expect(1).toBe(2);\n    |               ^' },
        { message: 'second soft error', stack: null, location: loc(8), snippet: null },
      ],
      stdout: 'try 1 out', stderr: null, annotations: [],
      attachments: [{ name: 'error-context', contentType: 'text/markdown', body: '# Page snapshot\n- button "Add"' }],
      stepCount: 1,
    });
    expect(got.attempts[1]).toMatchObject({ startedAt: null, stderr: 'try 2 err', annotations: [{ type: 'note', description: 'slow' }], stepCount: 0 });
  });

  it('GET /tests/:id/steps?retry=N gives that try\'s steps with their locations; without retry the last try\'s; a missing try is 404', async () => {
    const run = await newRun();
    const made = await sdk.tests.create(flaky(run.id));
    expect((await sdk.tests.steps(made.id, { retry: 0 })).data).toEqual([
      { title: 'click add', category: 'action', status: 'failed', duration: 5, error: { message: 'x' }, location: loc(6) },
    ]);
    expect((await sdk.tests.steps(made.id, { retry: 1 })).data).toEqual([]);
    expect((await sdk.tests.steps(made.id)).data).toEqual([{ title: 'click add', category: 'action', status: 'passed', duration: 4, error: null }]);
    await expect(sdk.tests.steps(made.id, { retry: 7 })).rejects.toBeInstanceOf(NotFoundError);
    const raw = await t.api('GET', `/tests/${made.id}/steps?retry=x`, { auth: t.apiKey });
    expect(raw.status).toBe(400);
    expect(raw.body.error.details).toMatchObject({ field: 'retry' });
  });

  it('a test sent without tries has none, and is its one try for steps (retry 0)', async () => {
    const run = await newRun();
    const made = await sdk.tests.create({ runId: run.id, projectId: t.projectId, title: 'one', fullTitle: 'one', status: 'passed', duration: 1, steps: [{ title: 's', category: 'action' }] });
    expect((await sdk.tests.get(made.id)).attempts).toEqual([]);
    expect((await sdk.tests.steps(made.id, { retry: 0 })).data.map((s) => s.title)).toEqual(['s']);
    await expect(sdk.tests.steps(made.id, { retry: 1 })).rejects.toBeInstanceOf(NotFoundError);
  });

  it('refuses a repeated retry, too many tries or errors, a bad status, with the field named, and stores nothing of the batch', async () => {
    const run = await newRun();
    const base = flaky(run.id);
    const bad: Array<[Partial<TestCreate>, string, string]> = [
      [{ attempts: [{ retry: 0, status: 'passed', duration: 1 }, { retry: 0, status: 'failed', duration: 1 }] }, 'tests[1].attempts[1].retry', 'invalid_value'],
      [{ attempts: Array.from({ length: LIMITS.attemptsMax + 1 }, (_, i) => ({ retry: i, status: 'failed' as const, duration: 1 })) }, 'tests[1].attempts', 'out_of_range'],
      [{ attempts: [{ retry: 0, status: 'passed', duration: 1, errors: Array.from({ length: LIMITS.attemptErrorsMax + 1 }, () => ({ message: 'e' })) }] }, 'tests[1].attempts[0].errors', 'out_of_range'],
      [{ attempts: [{ retry: 0, status: 'flaky' as 'passed', duration: 1 }] }, 'tests[1].attempts[0].status', 'invalid_value'],
      [{ attempts: [{ retry: -1, status: 'passed', duration: 1 }] }, 'tests[1].attempts[0].retry', 'out_of_range'],
      [{ attempts: [{ retry: 0, status: 'passed', duration: 1, errors: [{ message: 'm', location: { file: 'a', line: 1.5, column: 0 } }] }] }, 'tests[1].attempts[0].errors[0].location.line', 'invalid_type'],
    ];
    for (const [extra, field, reason] of bad) {
      const err = await sdk.tests.createBatch([base, { ...base, ...extra }]).catch((e) => e);
      expect(err, field).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).details).toMatchObject({ field, reason });
    }
    expect((await sdk.tests.list({ projectId: t.projectId, runId: run.id })).total).toBe(0);
  });

  it('caps long snippets and text attachments with a marker instead of refusing them', async () => {
    const run = await newRun();
    const made = await sdk.tests.create({
      ...flaky(run.id),
      attempts: [{
        retry: 0, status: 'failed', duration: 1,
        errors: [{ message: 'm', snippet: 's'.repeat(LIMITS.snippetChars + 10) }],
        attachments: [{ name: 'log', contentType: 'text/plain', body: 'b'.repeat(LIMITS.textAttachmentChars + 10) }],
      }],
    });
    const [a] = (await sdk.tests.get(made.id)).attempts;
    expect(a!.errors[0]!.snippet!.length).toBe(LIMITS.snippetChars);
    expect(a!.errors[0]!.snippet).toMatch(/truncated by testreport\]$/);
    expect(a!.attachments[0]!.body.length).toBe(LIMITS.textAttachmentChars);
  });

  it('POST /upload takes the retry that made a file; artifacts carry it (null when not said)', async () => {
    const run = await newRun();
    const made = await sdk.tests.create(flaky(run.id));
    const first = await sdk.artifacts.upload({ file: png(), fileName: 'shot.png', type: 'screenshot', runId: run.id, projectId: t.projectId, testId: made.id, retry: 0 });
    const second = await sdk.artifacts.upload({ file: png(), fileName: 'shot.png', type: 'screenshot', runId: run.id, projectId: t.projectId, testId: made.id, retry: 1 });
    const unknown = await sdk.artifacts.upload({ file: png(), fileName: 'other.png', type: 'screenshot', runId: run.id, projectId: t.projectId, testId: made.id });
    expect([first.retry, second.retry, unknown.retry]).toEqual([0, 1, null]);
    const listed = (await sdk.artifacts.list({ runId: run.id, testId: made.id })).data;
    expect(listed.map((a) => a.retry).sort()).toEqual([0, 1, null].sort());
    const bad = await sdk.artifacts.upload({ file: png(), fileName: 'x.png', type: 'screenshot', runId: run.id, projectId: t.projectId, retry: -2 }).catch((e) => e);
    expect(bad).toBeInstanceOf(ValidationError);
    expect((bad as ValidationError).details).toMatchObject({ field: 'retry' });
  });
});
