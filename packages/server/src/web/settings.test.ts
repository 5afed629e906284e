import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, type TestUser } from '../testing/harness.js';

let t: TestServer;
let viewer: TestUser;
let base: string;

async function page(path: string, opts: { cookie: string; form?: Record<string, string | string[]> }) {
  const headers: Record<string, string> = { Cookie: opts.cookie };
  let body: string | undefined;
  if (opts.form) {
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
    headers.Origin = t.url;
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(opts.form)) for (const one of ([] as string[]).concat(v)) q.append(k, one);
    body = q.toString();
  }
  const res = await t.server.app.request(path, { method: opts.form ? 'POST' : 'GET', headers, body, redirect: 'manual' });
  return { status: res.status, html: await res.text(), location: res.headers.get('location') };
}

beforeAll(async () => {
  t = await startTestServer();
  viewer = await t.createUser({ teamId: t.teamId, role: 'viewer' });
  base = `/projects/${t.projectId}/settings`;
});
afterAll(() => t?.close());

describe('settings pages', () => {
  it('shows a viewer only the tabs their role allows, and the services still refuse the rest', async () => {
    const res = await page(base, { cookie: viewer.cookie });
    expect(res.status).toBe(200);
    expect(res.html).toContain('>Members<');
    expect(res.html).not.toContain('>API keys<');
    expect(res.html).not.toContain('>Webhooks<');
    expect(res.html).not.toContain('Save settings');
    expect((await page(`${base}/keys`, { cookie: viewer.cookie })).status).toBe(403);
    expect((await page(`${base}/keys`, { cookie: viewer.cookie, form: { name: 'sneaky' } })).status).toBe(403);
  });

  it('creates an API key shown once with a copy button, lists it masked, and revokes it', async () => {
    const created = await page(`${base}/keys`, { cookie: t.owner.cookie, form: { name: 'CI main' } });
    expect(created.status).toBe(201);
    const key = /<code id="new-key">([^<]+)<\/code>/.exec(created.html)![1];
    expect(created.html).toContain('data-copy="new-key"');
    expect((await t.api('GET', '/me', { auth: key })).status).toBe(200);

    const list = await page(`${base}/keys`, { cookie: t.owner.cookie });
    expect(list.html).not.toContain(key);
    expect(list.html).toContain(key.slice(-4));
    const keyId = new RegExp(`/keys/([^/]+)/revoke" data-confirm="Revoke the key &quot;CI main&quot;`).exec(list.html)![1];
    const revoked = await page(`${base}/keys/${keyId}/revoke`, { cookie: t.owner.cookie, form: {} });
    expect(revoked.location).toBe(`${base}/keys?done=revoked`);
    expect((await t.api('GET', '/me', { auth: key })).status).toBe(401);
  });

  it('refuses a key without a name with the reason on the page', async () => {
    const res = await page(`${base}/keys`, { cookie: t.owner.cookie, form: { name: '' } });
    expect(res.status).toBe(400);
    expect(res.html).toContain('role="alert"');
    expect(res.html).toContain('name');
  });

  it('creates, edits, pings and deletes a webhook, with its deliveries log', async () => {
    const created = await page(`${base}/webhooks`, { cookie: t.owner.cookie, form: { url: 'http://127.0.0.1:9/hook', events: ['run.failed'], isActive: 'true' } });
    expect(created.location).toBe(`${base}/webhooks?done=created`);
    const hooks = await t.api('GET', `/webhooks?projectId=${t.projectId}`, { auth: t.owner });
    expect(hooks.body.data).toHaveLength(1);
    const hook = hooks.body.data[0];
    expect(hook).toMatchObject({ url: 'http://127.0.0.1:9/hook', events: ['run.failed'], isActive: true });

    const edited = await page(`${base}/webhooks/${hook.id}`, { cookie: t.owner.cookie, form: { url: 'http://127.0.0.1:9/other', events: ['run.completed', 'run.failed'] } });
    expect(edited.status).toBe(303);
    expect((await t.api('GET', `/webhooks/${hook.id}`, { auth: t.owner })).body).toMatchObject({ url: 'http://127.0.0.1:9/other', events: ['run.completed', 'run.failed'], isActive: false });

    await page(`${base}/webhooks/${hook.id}/test`, { cookie: t.owner.cookie, form: {} });
    const detail = await page(`${base}/webhooks/${hook.id}`, { cookie: t.owner.cookie });
    expect(detail.html).toContain('<td>ping</td>');

    const noEvents = await page(`${base}/webhooks`, { cookie: t.owner.cookie, form: { url: 'http://127.0.0.1:9/x' } });
    expect(noEvents.status).toBe(400);
    expect(noEvents.html).toContain('events');

    await page(`${base}/webhooks/${hook.id}/delete`, { cookie: t.owner.cookie, form: {} });
    expect((await t.api('GET', `/webhooks?projectId=${t.projectId}`, { auth: t.owner })).body.data).toHaveLength(0);
  });

  it('chooses a webhook\'s message format in the form: Slack on create, Teams on edit, an unknown one refused', async () => {
    const form = await page(`${base}/webhooks`, { cookie: t.owner.cookie });
    expect(form.html).toContain('<select name="format">');
    expect(form.html).toContain('<option value="slack">Slack incoming webhook</option>');
    const created = await page(`${base}/webhooks`, { cookie: t.owner.cookie, form: { url: 'http://127.0.0.1:9/slack', events: ['run.failed'], format: 'slack', isActive: 'true' } });
    expect(created.location).toBe(`${base}/webhooks?done=created`);
    const [hook] = (await t.api('GET', `/webhooks?projectId=${t.projectId}`, { auth: t.owner })).body.data;
    expect(hook).toMatchObject({ url: 'http://127.0.0.1:9/slack', format: 'slack' });
    const list = await page(`${base}/webhooks`, { cookie: t.owner.cookie });
    expect(list.html).toContain('<td>slack</td>');

    const edit = await page(`${base}/webhooks/${hook.id}`, { cookie: t.owner.cookie });
    expect(edit.html).toContain('<option value="slack" selected="">Slack incoming webhook</option>');
    await page(`${base}/webhooks/${hook.id}`, { cookie: t.owner.cookie, form: { url: hook.url, events: ['run.failed'], format: 'teams', isActive: 'true' } });
    expect((await t.api('GET', `/webhooks/${hook.id}`, { auth: t.owner })).body.format).toBe('teams');

    const bad = await page(`${base}/webhooks`, { cookie: t.owner.cookie, form: { url: 'http://127.0.0.1:9/x', events: ['run.failed'], format: 'discord' } });
    expect(bad.status).toBe(400);
    expect(bad.html).toContain('role="alert"');
    expect(bad.html).toContain('format');
    expect((await t.api('GET', `/webhooks?projectId=${t.projectId}`, { auth: t.owner })).body.data).toHaveLength(1);
    await page(`${base}/webhooks/${hook.id}/delete`, { cookie: t.owner.cookie, form: {} });
  });

  it('lists members and invites one; a viewer sees the list without the forms', async () => {
    const invited = await page(`${base}/members/invite`, { cookie: t.owner.cookie, form: { email: 'new.person@example.test', role: 'member' } });
    expect(invited.location).toBe(`${base}/members?done=invited`);
    const asOwner = await page(`${base}/members`, { cookie: t.owner.cookie });
    expect(asOwner.html).toContain('new.person@example.test as member · pending');
    expect(asOwner.html).toContain(viewer.email);
    const asViewer = await page(`${base}/members`, { cookie: viewer.cookie });
    expect(asViewer.html).toContain(t.owner.email);
    expect(asViewer.html).not.toContain('Send invitation');
    expect(asViewer.html).not.toContain('>Remove<');
  });

  it('sends webhook payloads that link to the run page of the dashboard', async () => {
    await page(`${base}/webhooks`, { cookie: t.owner.cookie, form: { url: 'http://127.0.0.1:9/done', events: ['run.completed'], isActive: 'true' } });
    const run = await t.api('POST', '/runs', { auth: t.apiKey, body: { projectId: t.projectId, status: 'running' } });
    await t.api('PATCH', `/runs/${run.body.id}`, { auth: t.apiKey, body: { status: 'passed' } });
    const rows = await t.server.services.deps.db.selectFrom('webhook_deliveries').select('payload').where('event', '=', 'run.completed').execute();
    expect(rows).toHaveLength(1);
    expect(JSON.parse(rows[0].payload).data.run.url).toBe(`${t.url}/runs/${run.body.id}`);
    expect((await page(`/runs/${run.body.id}`, { cookie: t.owner.cookie })).status).toBe(200);
  });

  it('saves project settings for an admin', async () => {
    const res = await page(base, { cookie: t.owner.cookie, form: { dataRetentionDays: '14', flakinessThreshold: '0.25', autoQuarantineEnabled: 'true', shardTimeoutMinutes: '45' } });
    expect(res.location).toBe(`${base}?done=saved`);
    expect((await t.api('GET', `/projects/${t.projectId}/settings`, { auth: t.owner })).body).toMatchObject({ dataRetentionDays: 14, flakinessThreshold: 0.25, autoQuarantineEnabled: true, shardTimeoutMinutes: 45 });
  });

  it('shows and saves the default branch run summaries compare with; a blank one is refused', async () => {
    expect((await page(base, { cookie: t.owner.cookie })).html).toMatch(/name="defaultBranch"[^>]*value="main"/);
    const saved = await page(base, { cookie: t.owner.cookie, form: { dataRetentionDays: '14', flakinessThreshold: '0.25', defaultBranch: ' develop ' } });
    expect(saved.location).toBe(`${base}?done=saved`);
    expect((await t.api('GET', `/projects/${t.projectId}/settings`, { auth: t.owner })).body).toMatchObject({ defaultBranch: 'develop' });
    const blank = await page(base, { cookie: t.owner.cookie, form: { dataRetentionDays: '14', flakinessThreshold: '0.25', defaultBranch: '' } });
    expect(blank.status).toBe(400);
    expect((await t.api('GET', `/projects/${t.projectId}/settings`, { auth: t.owner })).body.defaultBranch).toBe('develop');
  });
});

describe('forged posts from another origin', () => {
  it('deletes, pings, revokes and removes nothing when the post has no Content-Type (fetch mode no-cors) and a foreign or no origin', async () => {
    const hook = (await t.api('POST', '/webhooks', { auth: t.apiKey, body: { projectId: t.projectId, url: 'http://127.0.0.1:9/forged', events: ['run.failed'] } })).body;
    const key = (await t.api('POST', '/api-keys', { auth: t.owner, body: { projectId: t.projectId, name: 'forged' } })).body;
    const member = await t.createUser({ teamId: t.teamId, role: 'member' });
    const members = (await t.api('GET', `/team-members?teamId=${t.teamId}`, { auth: t.owner })).body.data as Array<{ id: string; userId: string }>;
    const memberId = members.find((m) => m.userId === member.userId)!.id;
    const actions = [`${base}/webhooks/${hook.id}/delete`, `${base}/webhooks/${hook.id}/test`, `${base}/keys/${key.id}/revoke`, `${base}/members/${memberId}/remove`];
    for (const headers of [{ Origin: 'http://localhost:1' }, { Origin: 'null' }, { Referer: 'http://localhost:1/page' }, {}] as Record<string, string>[]) {
      for (const path of actions) {
        const res = await t.server.app.request(path, { method: 'POST', headers: { Cookie: t.owner.cookie, ...headers }, redirect: 'manual' });
        expect(res.status, `${path} ${JSON.stringify(headers)}`).toBe(403);
      }
    }
    expect((await t.api('GET', `/webhooks/${hook.id}`, { auth: t.owner })).status).toBe(200);
    expect((await t.api('GET', `/webhooks/${hook.id}/deliveries`, { auth: t.owner })).body.data).toEqual([]);
    expect((await t.api('GET', '/me', { auth: key.key })).status).toBe(200);
    expect((await t.api('GET', `/team-members?teamId=${t.teamId}`, { auth: t.owner })).body.data.map((m: { userId: string }) => m.userId)).toContain(member.userId);
    await t.api('DELETE', `/webhooks/${hook.id}`, { auth: t.owner });
  });
});
