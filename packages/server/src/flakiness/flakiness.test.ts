import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { postTests, testBody } from '../testing/results.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

type Tenant = Awaited<ReturnType<TestServer['createOtherTenant']>>;
type Result = { case: string; status: string; isFlaky?: boolean };

/** One run per entry: created running, its results stored, then finished (so run.finished fires). */
async function script(p: Tenant, runs: { commit: string; results: Result[] }[]) {
  const ids: Record<string, string[]> = {};
  const created: Record<string, string[]> = {};
  for (const r of runs) {
    const run = await t.api('POST', '/runs', { auth: p.apiKey, body: { projectId: p.projectId, status: 'running', commitSha: r.commit, branch: 'main' } });
    const out = await postTests(t, r.results.map((x) => testBody(run.body.id, p.projectId, { title: x.case, fullTitle: `suite > ${x.case}`, status: x.status, ...(x.isFlaky ? { isFlaky: true } : {}) })), p.apiKey);
    out.forEach((o, i) => {
      const c = r.results[i].case;
      (ids[c] ??= []).push(o.id);
      (created[c] ??= []).push((o as unknown as { createdAt: string }).createdAt);
    });
    await t.api('PATCH', `/runs/${run.body.id}`, { auth: p.apiKey, body: { status: 'passed' } });
  }
  return { ids, created };
}

const flakiness = async (p: Tenant, q = '') => {
  const res = await t.api('GET', `/flakiness?projectId=${p.projectId}${q}`, { auth: p.apiKey });
  expect(res.status).toBe(200);
  return res.body;
};

describe('flakiness scores', () => {
  let p: Tenant;
  let ids: Record<string, string[]>;
  let created: Record<string, string[]>;
  beforeAll(async () => {
    p = await t.createOtherTenant();
    ({ ids, created } = await script(p, [
      { commit: 'c1', results: [{ case: 'A', status: 'passed' }, { case: 'B', status: 'passed' }, { case: 'C', status: 'passed' }, { case: 'D', status: 'passed' }, { case: 'D', status: 'failed' }] },
      { commit: 'c1', results: [{ case: 'A', status: 'failed' }, { case: 'B', status: 'passed' }, { case: 'C', status: 'passed' }] },
      { commit: 'c2', results: [{ case: 'A', status: 'flaky' }, { case: 'B', status: 'passed', isFlaky: true }, { case: 'C', status: 'passed' }] },
      { commit: 'c3', results: [{ case: 'A', status: 'skipped' }, { case: 'B', status: 'passed' }, { case: 'C', status: 'skipped' }] },
      { commit: 'c3', results: [{ case: 'A', status: 'passed' }, { case: 'B', status: 'passed' }, { case: 'C', status: 'passed' }] },
      { commit: 'c4', results: [{ case: 'A', status: 'failed' }, { case: 'B', status: 'passed' }, { case: 'C', status: 'passed' }] },
      { commit: 'c5', results: [{ case: 'A', status: 'passed' }, { case: 'B', status: 'passed' }, { case: 'C', status: 'passed' }] },
    ]));
  });

  it('scores cases from retries, skipped results and same-commit pass/fail, highest first', async () => {
    const body = await flakiness(p);
    // A: the skipped result (run 4) is left out → 6 results. Flaky: run 1 and run 2 (passed and
    //    failed on commit c1 in different runs) and run 3 (status flaky: passed on retry) → 3/6 = 0.5.
    //    Run 6 failed alone on c4, which is a plain failure.
    // B: 7 results, one flagged isFlaky (run 3) → 1/7 = 0.142857… → 0.1429.
    // C: always passed → 0, not listed. D: passed and failed on c1 but in the same run → 0, not listed.
    expect(body.data).toEqual([
      {
        testId: ids.A[6], caseId: expect.any(String), testTitle: 'A', fullTitle: 'suite > A', filePath: 'tests/cart.spec.ts',
        flakinessScore: 0.5, totalRuns: 6, flakyRuns: 3, lastFlakyAt: created.A[2], isQuarantined: false, isBroken: false, owners: [],
      },
      {
        testId: ids.B[6], caseId: expect.any(String), testTitle: 'B', fullTitle: 'suite > B', filePath: 'tests/cart.spec.ts',
        flakinessScore: 0.1429, totalRuns: 7, flakyRuns: 1, lastFlakyAt: created.B[2], isQuarantined: false, isBroken: false, owners: [],
      },
    ]);
    expect(body.summary.totalFlakyTests).toBe(2);
    expect(body.summary.quarantinedTests).toBe(0);
    // (0.5 + 0.1429) / 2 = 0.32145
    expect(body.summary.averageFlakinessScore).toBeCloseTo(0.3215, 3);
    expect(body).toMatchObject({ total: 2, limit: 50, offset: 0 });
  });

  it('filters by minScore', async () => {
    expect((await flakiness(p, '&minScore=0.2')).data.map((e: { testTitle: string }) => e.testTitle)).toEqual(['A']);
    expect((await flakiness(p, '&minScore=0.1429')).data).toHaveLength(2);
    expect((await flakiness(p, '&minScore=0.9')).data).toEqual([]);
    const missing = await t.api('GET', '/flakiness?minScore=0.5', { auth: p.apiKey });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details).toMatchObject({ field: 'projectId', reason: 'required' });
    const bad = await t.api('GET', `/flakiness?projectId=${p.projectId}&minScore=2`, { auth: p.apiKey });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.field).toBe('minScore');
  });

  it('quarantines a case by any of its results and filters on quarantine', async () => {
    const q = await t.api('POST', '/flakiness', { auth: p.apiKey, body: { testId: ids.B[0], projectId: p.projectId, isQuarantined: true } });
    expect(q.status).toBe(200);
    expect(q.body).toEqual({ testId: ids.B[0], isQuarantined: true, updatedAt: expect.any(String) });
    // A stable case can be quarantined too, and is listed with quarantined=true.
    await t.api('POST', '/flakiness', { auth: p.apiKey, body: { testId: ids.C[3], projectId: p.projectId, isQuarantined: true } });

    const on = await flakiness(p, '&quarantined=true');
    expect(on.data.map((e: { testTitle: string; isQuarantined: boolean }) => [e.testTitle, e.isQuarantined])).toEqual([['B', true], ['C', true]]);
    expect(on.summary).toMatchObject({ totalFlakyTests: 1, quarantinedTests: 2 });
    const off = await flakiness(p, '&quarantined=false');
    expect(off.data.map((e: { testTitle: string }) => e.testTitle)).toEqual(['A']);
    const all = await flakiness(p);
    expect(all.data.map((e: { testTitle: string; isQuarantined: boolean }) => [e.testTitle, e.isQuarantined])).toEqual([['A', false], ['B', true]]);

    const release = await t.api('POST', '/flakiness', { auth: p.apiKey, body: { testId: ids.B[6], projectId: p.projectId, isQuarantined: false } });
    expect(release.body.isQuarantined).toBe(false);
    expect((await flakiness(p, '&quarantined=true')).data.map((e: { testTitle: string }) => e.testTitle)).toEqual(['C']);
  });

  it('refuses bad quarantine requests', async () => {
    for (const field of ['testId', 'projectId', 'isQuarantined']) {
      const body: Record<string, unknown> = { testId: ids.A[0], projectId: p.projectId, isQuarantined: true };
      delete body[field];
      const res = await t.api('POST', '/flakiness', { auth: p.apiKey, body });
      expect(res.status).toBe(400);
      expect(res.body.error.details).toMatchObject({ field, reason: 'required' });
    }
    expect((await t.api('POST', '/flakiness', { auth: p.apiKey, body: { testId: 'nope', projectId: p.projectId, isQuarantined: true } })).status).toBe(404);
    expect((await t.api('POST', '/flakiness', { auth: t.apiKey, body: { testId: ids.A[0], projectId: p.projectId, isQuarantined: true } })).status).toBe(403);
    expect((await t.api('GET', `/flakiness?projectId=${p.projectId}`, { auth: t.apiKey })).status).toBe(403);
    const viewer = await t.createUser({ teamId: p.teamId, role: 'viewer' });
    expect((await t.api('POST', '/flakiness', { auth: viewer, body: { testId: ids.A[0], projectId: p.projectId, isQuarantined: true } })).status).toBe(403);
    expect((await t.api('GET', `/flakiness?projectId=${p.projectId}`, { auth: viewer })).status).toBe(200);
  });
});

describe('auto-quarantine', () => {
  // E: flaky, passed, flaky, passed, passed → after the 5th finished run: 2/5 = 0.4 ≥ 0.3 with 5 results.
  const runs = ['flaky', 'passed', 'flaky', 'passed', 'passed'].map((s, i) => ({ commit: `k${i}`, results: [{ case: 'E', status: s }, { case: 'F', status: 'passed' }] }));
  const quarantined = async (p: Tenant) => (await flakiness(p, '&quarantined=true')).data.map((e: { testTitle: string }) => e.testTitle);

  it('quarantines a case of a finished run with ≥ 5 results and score ≥ threshold when enabled', async () => {
    const p = await t.createOtherTenant();
    const s = await t.api('PATCH', `/projects/${p.projectId}/settings`, { auth: p.owner, body: { autoQuarantineEnabled: true, flakinessThreshold: 0.3 } });
    expect(s.status).toBe(200);
    await script(p, runs.slice(0, 4));
    // 4 results (score 0.5) are not enough evidence yet.
    expect(await quarantined(p)).toEqual([]);
    await script(p, runs.slice(4));
    expect(await quarantined(p)).toEqual(['E']);
    const entry = (await flakiness(p)).data.find((e: { testTitle: string }) => e.testTitle === 'E');
    expect(entry).toMatchObject({ flakinessScore: 0.4, totalRuns: 5, flakyRuns: 2, isQuarantined: true });
  });

  it('leaves cases alone below the threshold and when disabled', async () => {
    const high = await t.createOtherTenant();
    await t.api('PATCH', `/projects/${high.projectId}/settings`, { auth: high.owner, body: { autoQuarantineEnabled: true, flakinessThreshold: 0.5 } });
    await script(high, runs);
    expect(await quarantined(high)).toEqual([]);

    const off = await t.createOtherTenant();
    await script(off, runs);
    expect(await quarantined(off)).toEqual([]);
    expect((await flakiness(off)).data.map((e: { testTitle: string; flakinessScore: number }) => [e.testTitle, e.flakinessScore])).toEqual([['E', 0.4]]);
  });
});

describe('stats a reader sees', () => {
  it('a test page shows the score of results stored since the last recompute (its case is dirty)', async () => {
    const p = await t.createOtherTenant();
    // The finished run recomputes G (1 result, not flaky); the second run, still running, leaves G dirty.
    await script(p, [{ commit: 'g1', results: [{ case: 'G', status: 'passed' }] }]);
    const running = await t.api('POST', '/runs', { auth: p.apiKey, body: { projectId: p.projectId, status: 'running', commitSha: 'g1', branch: 'main' } });
    const [failed] = await postTests(t, [testBody(running.body.id, p.projectId, { title: 'G', fullTitle: 'suite > G', status: 'failed' })], p.apiKey);
    const page = await fetch(`${t.url}/tests/${failed.id}`, { headers: { cookie: p.owner.cookie } });
    expect(page.status).toBe(200);
    // Passed and failed on commit g1 in two runs: both results count flaky (docs/decisions.md §7).
    expect(await page.text()).toContain('(2 flaky of 2 runs)');
  });
});
