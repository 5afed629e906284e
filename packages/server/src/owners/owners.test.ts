import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { postTests, testBody } from '../testing/results.js';
import { ownersResolver } from './codeowners.js';

// GitHub's documented examples (docs "About code owners"), nested: the last matching line wins.
const CODEOWNERS = `# Default owners
*       @acme/all
/docs/  @acme/docs
**/logs @acme/logs
apps/*.js @acme/apps
e2e/checkout/ @acme/checkout @jane
# Nobody owns the legacy spec: a matching line without owners
e2e/checkout/legacy.spec.ts
`;

describe('CODEOWNERS resolution', () => {
  it('applies GitHub rules: last match wins, anchored and unanchored patterns, single-level *', () => {
    const at = ownersResolver(CODEOWNERS, null);
    expect(at('README.md')).toEqual(['@acme/all']);
    expect(at('docs/guide.md')).toEqual(['@acme/docs']);
    expect(at('src/docs/guide.md')).toEqual(['@acme/all']); // /docs/ is anchored at the root
    expect(at('logs/a.log')).toEqual(['@acme/logs']);
    expect(at('deep/down/logs/a.log')).toEqual(['@acme/logs']);
    expect(at('apps/main.js')).toEqual(['@acme/apps']);
    expect(at('apps/nested/main.js')).toEqual(['@acme/all']); // * does not cross a /
    expect(at('e2e/checkout/pay.spec.ts')).toEqual(['@acme/checkout', '@jane']);
    expect(at('e2e/checkout/legacy.spec.ts')).toEqual([]);
    expect(at(null)).toEqual([]);
  });

  it('puts file paths under the repository root the run names, and gives nothing outside it', () => {
    const at = ownersResolver(CODEOWNERS, 'e2e');
    expect(at('checkout/pay.spec.ts')).toEqual(['@acme/checkout', '@jane']);
    expect(at('../docs/x.md')).toEqual(['@acme/docs']);
    expect(at('../../etc/passwd')).toEqual([]);
    expect(ownersResolver('', null)('a.ts')).toEqual([]);
    expect(ownersResolver('\r\n# only comments\r\n', null)('a.ts')).toEqual([]);
    expect(ownersResolver('*.ts @crlf\r\n', null)('a.ts')).toEqual(['@crlf']);
  });
});

describe('owners of results and owner= filters', () => {
  let t: TestServer;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    t = await startTestServer();
    const run = await t.api('POST', '/runs', { auth: t.apiKey, body: { projectId: t.projectId, status: 'running', branch: 'main', codeowners: CODEOWNERS, rootDirInRepo: 'e2e' } });
    expect(run.status).toBe(201);
    expect(run.body).not.toHaveProperty('codeowners');
    const files = { pay: 'checkout/pay.spec.ts', legacy: 'checkout/legacy.spec.ts', cart: 'cart.spec.ts', logs: 'admin/logs/view.spec.ts' };
    const out = await postTests(t, Object.entries(files).map(([title, filePath]) => testBody(run.body.id, t.projectId, { title, fullTitle: `s > ${title}`, filePath, status: title === 'pay' ? 'flaky' : 'passed' })));
    Object.keys(files).forEach((k, i) => (ids[k] = out[i].id));
    // A run without CODEOWNERS: its results have no owners.
    const plain = await t.api('POST', '/runs', { auth: t.apiKey, body: { projectId: t.projectId, status: 'running' } });
    const [bare] = await postTests(t, [testBody(plain.body.id, t.projectId, { title: 'bare', fullTitle: 's > bare', filePath: 'checkout/pay2.spec.ts' })]);
    ids.bare = bare.id;
  });
  afterAll(async () => {
    await t?.close();
  });

  const listed = async (path: string) => {
    const res = await t.api('GET', path, { auth: t.apiKey });
    expect(res.status).toBe(200);
    return res.body.data as { id?: string; testId?: string; owners: string[] }[];
  };

  it('gives each test the owners of its file', async () => {
    const owners = async (k: string) => (await t.api('GET', `/tests/${ids[k]}`, { auth: t.apiKey })).body.owners;
    expect(await owners('pay')).toEqual(['@acme/checkout', '@jane']);
    expect(await owners('legacy')).toEqual([]);
    expect(await owners('cart')).toEqual(['@acme/all']);
    expect(await owners('logs')).toEqual(['@acme/logs']);
    expect(await owners('bare')).toEqual([]);
  });

  it('owner= on GET /tests returns exactly the owner’s tests', async () => {
    const q = (owner: string) => listed(`/tests?projectId=${t.projectId}&owner=${encodeURIComponent(owner)}`).then((d) => d.map((x) => x.id).sort());
    expect(await q('@acme/checkout')).toEqual([ids.pay]);
    expect(await q('@jane')).toEqual([ids.pay]);
    expect(await q('@acme/all')).toEqual([ids.cart]);
    expect(await q('@acme/check')).toEqual([]); // a prefix is not an owner
    expect(await q('@acme/%')).toEqual([]); // nor a LIKE wildcard
    const bad = await t.api('GET', `/tests?projectId=${t.projectId}&owner=`, { auth: t.apiKey });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.field).toBe('owner');
  });

  it('owner= on GET /flakiness returns exactly the owner’s flaky tests', async () => {
    const all = await listed(`/flakiness?projectId=${t.projectId}&quarantined=false`);
    expect(all.map((e) => e.owners)).toEqual([['@acme/checkout', '@jane']]);
    expect((await listed(`/flakiness?projectId=${t.projectId}&owner=%40jane`)).map((e) => e.testId)).toEqual([ids.pay]);
    expect(await listed(`/flakiness?projectId=${t.projectId}&owner=%40acme%2Fall`)).toEqual([]);
  });
});
