import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { startReceiver, type Receiver } from '../testing/receiver.js';
import { createRun, postTests, testBody } from '../testing/results.js';

/*
 * Slack and Teams webhooks, end to end: a real run with many long failures is finished over the API,
 * the worker delivers to loopback receivers, and the bodies are checked against the documented shapes
 * (Slack Block Kit: ≤ 50 blocks, section text ≤ 3,000, header plain_text ≤ 150, context ≤ 10 elements;
 * Teams: a `message` with one Adaptive Card attachment).
 */
const SECRET = 'whsec_chat-secret-value-123';
const FAILURES = 80;
const longError = `Error: expect(locator).toHaveText(expected) failed ${'x'.repeat(5_000)}\n    at tests/cart.spec.ts:12:5`;
const longBranch = `feature/${'very-long-branch-name-'.repeat(10)}`;

let t: TestServer;
let receiver: Receiver;
/** One receiver for the file; each test reads what arrived after `mark()` and removes its webhooks. */
beforeAll(async () => {
  [t, receiver] = await Promise.all([startTestServer({ backgroundJobs: false, webhookTimeoutMs: 2_000 }), startReceiver()]);
});
afterAll(async () => Promise.all([receiver?.close(), t?.close()]));

let seen = 0;
const mark = () => void (seen = receiver.received.length);
const arrived = async (n: number) => {
  await receiver.waitFor(seen + n);
  return receiver.received.slice(seen);
};
const dropHooks = () => t.server.services.deps.db.deleteFrom('webhooks').execute();

const deliver = () => t.server.services.webhooks.deliverDueOnce();

async function createHook(body: Record<string, unknown>) {
  const res = await t.api('POST', '/webhooks', { auth: t.apiKey, body: { projectId: t.projectId, events: ['run.completed', 'run.failed'], ...body } });
  expect(res.status).toBe(201);
  return res.body;
}

/** A finished run with FAILURES failing tests (long titles and errors) and a few passing ones. */
async function failingRun() {
  const run = await createRun(t, { branch: longBranch, commitSha: '0123456789abcdef0123456789abcdef01234567', commitMessage: 'Checkout: <b>bold</b> & more\nsecond line' });
  const failing = Array.from({ length: FAILURES }, (_, i) =>
    testBody(run.id, t.projectId, {
      title: `fails ${String(i).padStart(2, '0')} ${'t'.repeat(400)}`,
      fullTitle: `checkout > fails ${String(i).padStart(2, '0')} ${'t'.repeat(400)}`,
      filePath: `tests/checkout-${String(i).padStart(2, '0')}.spec.ts`,
      status: 'failed',
      error: { message: longError },
    }),
  );
  await postTests(t, [...failing, ...Array.from({ length: 5 }, (_, i) => testBody(run.id, t.projectId, { title: `passes ${i}`, fullTitle: `cart > passes ${i}`, filePath: 'tests/cart.spec.ts' }))]);
  const done = await t.api('PATCH', `/runs/${run.id}`, { auth: t.apiKey, body: { status: 'failed' } });
  expect(done.status).toBe(200);
  return run.id;
}

type Block = { type: string; text?: { type: string; text: string }; elements?: { type: string; text: string }[] };

function expectSlackShape(body: { text?: unknown; blocks?: Block[] }) {
  expect(typeof body.text).toBe('string');
  expect((body.text as string).length).toBeGreaterThan(0);
  expect(Array.isArray(body.blocks)).toBe(true);
  expect(body.blocks!.length).toBeGreaterThan(0);
  expect(body.blocks!.length).toBeLessThanOrEqual(50);
  for (const b of body.blocks!) {
    expect(['header', 'section', 'context', 'divider']).toContain(b.type);
    if (b.type === 'header') {
      expect(b.text!.type).toBe('plain_text');
      expect([...b.text!.text].length).toBeLessThanOrEqual(150);
    }
    if (b.type === 'section') {
      expect(b.text!.type).toBe('mrkdwn');
      expect(b.text!.text.length).toBeGreaterThan(0);
      expect([...b.text!.text].length).toBeLessThanOrEqual(3000);
    }
    if (b.type === 'context') {
      expect(b.elements!.length).toBeGreaterThan(0);
      expect(b.elements!.length).toBeLessThanOrEqual(10);
      for (const e of b.elements!) expect([...e.text].length).toBeLessThanOrEqual(3000);
    }
  }
}

describe('Slack webhooks', () => {
  it('posts a Block Kit message within Slack limits for a run with many long failures', async () => {
    mark();
    const hook = await createHook({ url: receiver.url, format: 'slack', secret: SECRET });
    expect(hook.format).toBe('slack');
    const runId = await failingRun();
    await deliver();
    const got = await arrived(2);

    expect(got.map((r) => r.headers['x-testreport-event']).sort()).toEqual(['run.completed', 'run.failed']);
    for (const r of got) {
      expect(r.headers['content-type']).toBe('application/json');
      // Our signature still comes along: harmless to Slack, useful to a relay that checks it.
      expect(r.headers['x-testreport-signature']).toBe(createHmac('sha256', SECRET).update(r.body).digest('hex'));
      const body = JSON.parse(r.body);
      expectSlackShape(body);
      const all = JSON.stringify(body.blocks);
      expect(body.blocks[0]).toMatchObject({ type: 'header', text: { type: 'plain_text' } });
      expect(body.blocks[0].text.text).toMatch(/^Test run failed on feature\//);
      expect(all).toContain(`${FAILURES + 5} tests`);
      expect(all).toContain(`${FAILURES} failed`);
      expect(all).toContain('0123456789ab'); // the short commit
      expect(all).toContain('&lt;b&gt;bold&lt;/b&gt; &amp; more'); // mrkdwn control characters escaped
      expect(all).not.toContain('second line');
      expect(all).toContain(`<${t.url}/runs/${runId}|Open the run>`);
      expect(all).toContain('checkout &gt; fails 00');
      expect(all).toContain('tests/checkout-00.spec.ts');
      expect(all).toContain(`…and ${FAILURES - 10} more failures`);
      expect(all).not.toContain('checkout &gt; fails 10'); // only the first ten are listed
    }
    const log = (await t.api('GET', `/webhooks/${hook.id}/deliveries`, { auth: t.apiKey })).body;
    expect(log.data.map((d: { status: string }) => d.status)).toEqual(['succeeded', 'succeeded']);
    await dropHooks();
  });

  it('pings with a plain Slack message', async () => {
    mark();
    const hook = await createHook({ url: receiver.url, format: 'slack' });
    expect((await t.api('POST', `/webhooks/${hook.id}/test`, { auth: t.apiKey })).status).toBe(201);
    await deliver();
    const [ping] = await arrived(1);
    const body = JSON.parse(ping.body);
    expectSlackShape(body);
    expect(body.text).toBe('testreport: this webhook is connected.');
    expect(ping.headers['x-testreport-signature']).toBeUndefined(); // no secret, no signature
    await dropHooks();
  });
});

describe('Teams webhooks', () => {
  it('posts a message with one Adaptive Card attachment linking to the run', async () => {
    mark();
    const hook = await createHook({ url: receiver.url, format: 'teams', events: ['run.failed'] });
    const runId = await failingRun();
    await deliver();
    const got = await arrived(1);
    expect(got).toHaveLength(1);
    const body = JSON.parse(got[0].body);
    expect(body.type).toBe('message');
    expect(body.attachments).toHaveLength(1);
    const [att] = body.attachments;
    expect(att.contentType).toBe('application/vnd.microsoft.card.adaptive');
    expect(att.content).toMatchObject({ type: 'AdaptiveCard', $schema: 'http://adaptivecards.io/schemas/adaptive-card.json' });
    expect(att.content.version).toMatch(/^1\.\d$/);
    for (const el of att.content.body) {
      expect(['TextBlock', 'FactSet']).toContain(el.type);
      if (el.type === 'TextBlock') expect(el.text.length).toBeGreaterThan(0);
    }
    expect(att.content.body[0].text).toMatch(/^Test run failed on feature\//);
    expect(att.content.actions).toContainEqual({ type: 'Action.OpenUrl', title: 'Open the run', url: `${t.url}/runs/${runId}` });
    const facts = att.content.body.find((b: { type: string }) => b.type === 'FactSet').facts;
    expect(facts.map((f: { title: string }) => f.title)).toEqual(['Branch', 'Commit']);
    const text = JSON.stringify(att.content.body);
    expect(text).toContain('checkout > fails 09');
    expect(text).not.toContain('checkout > fails 10');
    expect(text).toContain(`…and ${FAILURES - 10} more failures`);
    // Teams rejects large messages (about 28 KB); long errors are cut to their first line.
    expect(Buffer.byteLength(got[0].body)).toBeLessThan(28_000);
    expect((await t.api('GET', `/webhooks/${hook.id}/deliveries`, { auth: t.apiKey })).body.data[0].status).toBe('succeeded');
    await dropHooks();
  });
});

describe('new failures in chat messages', () => {
  /** A finished run on `branch` with the given outcomes (test name → status). */
  async function finished(branch: string, outcomes: Record<string, string>, codeowners?: string) {
    const run = await createRun(t, { branch, ...(codeowners ? { codeowners } : {}) });
    await postTests(t, Object.entries(outcomes).map(([name, status]) =>
      testBody(run.id, t.projectId, { title: name, fullTitle: `cart > ${name}`, filePath: `tests/${name}.spec.ts`, status, ...(status === 'failed' ? { error: { message: `Error: ${name} broke` } } : {}) })));
    expect((await t.api('PATCH', `/runs/${run.id}`, { auth: t.apiKey, body: { status: 'failed' } })).status).toBe(200);
    return run.id;
  }

  it('Slack and Teams name the failures that are new since the last run on the default branch', async () => {
    await finished('main', { 'was green': 'passed', 'always red': 'failed' });
    await deliver(); // nothing listens yet; the base run's finish sends nothing
    mark();
    await createHook({ url: receiver.url, format: 'slack', events: ['run.failed'] });
    await createHook({ url: receiver.url, format: 'teams', events: ['run.failed'] });
    // The run's CODEOWNERS names who owns the new failure (docs/decisions.md §13).
    await finished('feature/new-failure', { 'was green': 'failed', 'always red': 'failed' }, 'tests/was* @acme/cart @jane\n');
    await deliver();
    const got = await arrived(2);
    const slack = JSON.parse(got.find((r) => JSON.parse(r.body).blocks)!.body);
    expectSlackShape(slack);
    const blocks = JSON.stringify(slack.blocks);
    expect(blocks).toContain('New failures: 1 since the last run on main');
    expect(blocks).toContain(':new: cart &gt; was green — tests/was green.spec.ts (owners: @acme/cart @jane)');
    expect(blocks).not.toContain(':new: cart &gt; always red');
    expect(slack.text).toContain('1 new since main');
    const teams = JSON.parse(got.find((r) => JSON.parse(r.body).type === 'message')!.body);
    const texts = teams.attachments[0].content.body.map((b: { text?: string }) => b.text);
    const at = texts.indexOf('New failures: 1 since the last run on main');
    expect(at).toBeGreaterThan(0);
    expect(texts[at + 1]).toBe('cart > was green — tests/was green.spec.ts (owners: @acme/cart @jane)');
    expect(texts).toContain('First failures (2 of 2)');
    await dropHooks();
  });

  it('many long new failures stay within Slack limits and Teams size, and the rest are counted', async () => {
    mark();
    await createHook({ url: receiver.url, format: 'slack', events: ['run.failed'] });
    await createHook({ url: receiver.url, format: 'teams', events: ['run.failed'] });
    await failingRun(); // 80 failures with 400-character titles, none of them in the last run on main
    await deliver();
    const got = await arrived(2);
    const slack = JSON.parse(got.find((r) => JSON.parse(r.body).blocks)!.body);
    expectSlackShape(slack);
    const blocks = JSON.stringify(slack.blocks);
    expect(blocks).toContain(`New failures: ${FAILURES} since the last run on main`);
    const listed = (blocks.match(/:new: /g) ?? []).length;
    expect(listed).toBeGreaterThan(0);
    expect(listed).toBeLessThanOrEqual(10);
    expect(blocks).toContain(`…and ${FAILURES - listed} more new failures`);
    const teams = got.find((r) => JSON.parse(r.body).type === 'message')!;
    expect(Buffer.byteLength(teams.body)).toBeLessThan(28_000);
    expect(teams.body).toContain(`…and ${FAILURES - 10} more new failures`);
    await dropHooks();
  });
});

describe('webhook format', () => {
  it('defaults to generic, can be changed, and an unknown format is a 400 naming the field', async () => {
    const hook = await createHook({ url: 'http://127.0.0.1:9/hook' });
    expect(hook.format).toBe('generic');
    const changed = await t.api('PATCH', `/webhooks/${hook.id}`, { auth: t.apiKey, body: { format: 'teams' } });
    expect(changed.status).toBe(200);
    expect(changed.body.format).toBe('teams');
    expect((await t.api('GET', `/webhooks/${hook.id}`, { auth: t.apiKey })).body.format).toBe('teams');
    const bad = await t.api('POST', '/webhooks', { auth: t.apiKey, body: { projectId: t.projectId, url: 'http://127.0.0.1:9/x', events: ['run.failed'], format: 'discord' } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('format');
    const count = await t.server.services.deps.db.selectFrom('webhooks').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(1); // nothing written for the bad request
    await dropHooks();
  });
});

describe('runs of a CI build', () => {
  it('a chat message says when shards are missing and when a finish repeats after a reopen', async () => {
    await createHook({ url: receiver.url, format: 'slack', events: ['run.completed'] });
    try {
      const build = { projectId: t.projectId, status: 'running', branch: 'main', ciBuildId: `chat-${Date.now()}`, shardTotal: 3 };
      const run = (await t.api('POST', '/runs', { auth: t.apiKey, body: { ...build, shardCurrent: 1 } })).body;
      await t.api('PATCH', `/runs/${run.id}`, { auth: t.apiKey, body: { status: 'passed', shardCurrent: 1 } });
      mark();
      await t.api('POST', `/runs/${run.id}/complete`, { auth: t.apiKey });
      await deliver();
      const first = JSON.parse((await arrived(1))[0].body);
      expect(first.text).toContain('Only 1 of 3 shards reported.');
      expect(first.text).not.toContain('Updated result');

      await t.api('POST', '/runs', { auth: t.apiKey, body: { ...build, shardCurrent: 2 } });
      await t.api('PATCH', `/runs/${run.id}`, { auth: t.apiKey, body: { status: 'passed', shardCurrent: 2 } });
      mark();
      await deliver();
      const second = JSON.parse((await arrived(1))[0].body);
      expect(second.text).toContain('Updated result (finish 2): a late shard or a re-run reopened this run.');
      expect(second.text).toContain('Only 2 of 3 shards reported.');
    } finally {
      await dropHooks();
    }
  });
});
