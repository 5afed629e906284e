import type { Context, Hono } from 'hono';
import { apiKeyCreate, invitationCreate, settingsUpdate, webhookCreate, webhookUpdate, memberUpdate } from '@testreport/contract';
import { parseWith } from '../http/validation.js';
import { AppError, NotFoundError } from '../lib/errors.js';
import type { Services } from '../services.js';
import { formFields, stringFields } from './authRoutes.js';
import { pageOf } from './format.js';
import type { NavData } from './layout.js';
import { MembersPage } from './pages/members.js';
import { ApiKeysPage, ProjectSettingsPage } from './pages/settings.js';
import { WebhookPage, WebhooksPage } from './pages/webhooks.js';
import { loadNav, render, renderError } from './render.js';
import type { WebEnv } from './session.js';

type Ctx = Context<WebEnv>;
type Flash = { notice?: string; error?: string };

/** After a successful post the browser is redirected with `?done=<code>`; only these texts can appear. */
const DONE: Record<string, string> = {
  saved: 'Saved.',
  revoked: 'The key was revoked.',
  created: 'Webhook created.',
  deleted: 'Webhook deleted.',
  pinged: 'Test ping queued; it appears in the deliveries below.',
  invited: 'Invitation sent.',
  role: 'Role changed.',
  removed: 'Member removed.',
};
const DELIVERIES_PER_PAGE = 20;

/** A webhook form: its text fields and every checked event (a repeated field). */
async function hookForm(c: Ctx) {
  const body = await c.req.parseBody({ all: true });
  const events = ([] as unknown[]).concat(body.events ?? []).filter((e): e is string => typeof e === 'string');
  return { fields: stringFields(body), events };
}

const flashOf = (c: Ctx): Flash => ({ notice: DONE[c.req.query('done') ?? ''] });
/** A validation or permission problem is shown on the form's page, with the status it deserves. */
const problem = (err: unknown) => {
  if (err instanceof AppError && err.status < 500 && err.status !== 404) return { error: err.message, status: err.status };
  throw err;
};

export function mountSettingsPages(app: Hono<WebEnv>, services: Services) {
  const nav = async (c: Ctx): Promise<NavData> => {
    const n = await loadNav(services, c.get('principal'), c.req.param('id') ?? '', 'settings');
    if (!n.current) throw new NotFoundError('Project');
    return n;
  };
  const route = (method: 'get' | 'post', path: string, fn: (c: Ctx) => Promise<Response>) =>
    app[method](`/projects/:id/settings${path}`, async (c: Ctx) => {
      try {
        return await fn(c);
      } catch (err) {
        return renderError(c, services, err);
      }
    });
  const done = (c: Ctx, path: string, code: string) => c.redirect(`/projects/${c.req.param('id')}/settings${path}?done=${code}`, 303);

  // Project settings
  const showProject = async (c: Ctx, flash: Flash, status = 200) => {
    const n = await nav(c);
    return render(c, services, <ProjectSettingsPage nav={n} settings={await services.projects.getSettings(c.get('principal'), n.current!.project.id)} flash={flash} />, status);
  };
  route('get', '', (c) => showProject(c, flashOf(c)));
  route('post', '', async (c) => {
    const f = await formFields(c);
    try {
      const patch = parseWith(settingsUpdate, {
        dataRetentionDays: Number(f.dataRetentionDays),
        flakinessThreshold: Number(f.flakinessThreshold),
        autoQuarantineEnabled: f.autoQuarantineEnabled === 'true',
        // A form loaded before a field existed leaves that setting as it is.
        ...(f.defaultBranch !== undefined ? { defaultBranch: f.defaultBranch } : {}),
        ...(f.shardTimeoutMinutes !== undefined ? { shardTimeoutMinutes: Number(f.shardTimeoutMinutes) } : {}),
        ...(f.autoQuarantineMinRuns !== undefined ? { autoQuarantineMinRuns: Number(f.autoQuarantineMinRuns) } : {}),
        ...(f.autoReleaseAfterPasses !== undefined ? { autoReleaseAfterPasses: Number(f.autoReleaseAfterPasses) } : {}),
      });
      await services.projects.updateSettings(c.get('principal'), c.req.param('id') ?? '', patch);
      return done(c, '', 'saved');
    } catch (err) {
      const p = problem(err);
      return showProject(c, { error: p.error }, p.status);
    }
  });

  // API keys
  const showKeys = async (c: Ctx, flash: Flash, created?: { name: string; key: string }, status = 200) => {
    const n = await nav(c);
    const keys = await services.apiKeys.list(c.get('principal'), n.current!.project.id);
    return render(c, services, <ApiKeysPage nav={n} keys={keys} created={created} flash={flash} />, status);
  };
  route('get', '/keys', (c) => showKeys(c, flashOf(c)));
  route('post', '/keys', async (c) => {
    const f = await formFields(c);
    try {
      const input = parseWith(apiKeyCreate, { projectId: c.req.param('id'), name: f.name ?? '', expiresAt: f.expiresAt ? `${f.expiresAt}T23:59:59.000Z` : null });
      const created = await services.apiKeys.create(c.get('principal'), input);
      // The key is in this answer only; never in a redirect URL or a later page.
      return showKeys(c, {}, { name: created.name, key: created.key }, 201);
    } catch (err) {
      const p = problem(err);
      return showKeys(c, { error: p.error }, undefined, p.status);
    }
  });
  route('post', '/keys/:keyId/revoke', async (c) => {
    await services.apiKeys.setActive(c.get('principal'), c.req.param('keyId') ?? '', false);
    return done(c, '/keys', 'revoked');
  });

  // Webhooks
  const hookInput = (f: Record<string, string>, events: string[]) => ({
    url: f.url ?? '',
    events,
    // An absent field keeps what the webhook has; a bad value is the contract's 400 on `format`.
    ...(f.format ? { format: f.format } : {}),
    isActive: f.isActive === 'true',
    ...(f.secret ? { secret: f.secret } : {}),
  });
  const showHooks = async (c: Ctx, flash: Flash, status = 200) => {
    const n = await nav(c);
    const hooks = await services.webhooks.list(c.get('principal'), n.current!.project.id);
    return render(c, services, <WebhooksPage nav={n} hooks={hooks.data} flash={flash} />, status);
  };
  route('get', '/webhooks', (c) => showHooks(c, flashOf(c)));
  route('post', '/webhooks', async (c) => {
    const { fields, events } = await hookForm(c);
    try {
      const input = parseWith(webhookCreate, { projectId: c.req.param('id'), ...hookInput(fields, events) });
      await services.webhooks.create(c.get('principal'), input);
      return done(c, '/webhooks', 'created');
    } catch (err) {
      const p = problem(err);
      return showHooks(c, { error: p.error }, p.status);
    }
  });
  const showHook = async (c: Ctx, flash: Flash, status = 200) => {
    const n = await nav(c);
    const principal = c.get('principal');
    const hook = await services.webhooks.get(principal, c.req.param('hookId') ?? '');
    if (hook.projectId !== n.current!.project.id) throw new NotFoundError('Webhook');
    const pageNo = pageOf(c.req.query('page'));
    const deliveries = await services.webhooks.deliveries(principal, hook.id, { limit: DELIVERIES_PER_PAGE, offset: (pageNo - 1) * DELIVERIES_PER_PAGE });
    return render(c, services, <WebhookPage nav={n} hook={hook} deliveries={deliveries.data} total={deliveries.total} page={pageNo} pageSize={DELIVERIES_PER_PAGE} flash={flash} />, status);
  };
  route('get', '/webhooks/:hookId', (c) => showHook(c, flashOf(c)));
  route('post', '/webhooks/:hookId', async (c) => {
    const { fields, events } = await hookForm(c);
    try {
      const input = parseWith(webhookUpdate, hookInput(fields, events));
      await services.webhooks.update(c.get('principal'), c.req.param('hookId') ?? '', input);
      return done(c, `/webhooks/${c.req.param('hookId')}`, 'saved');
    } catch (err) {
      const p = problem(err);
      return showHook(c, { error: p.error }, p.status);
    }
  });
  route('post', '/webhooks/:hookId/delete', async (c) => {
    await services.webhooks.remove(c.get('principal'), c.req.param('hookId') ?? '');
    return done(c, '/webhooks', 'deleted');
  });
  route('post', '/webhooks/:hookId/test', async (c) => {
    await services.webhooks.test(c.get('principal'), c.req.param('hookId') ?? '');
    return done(c, `/webhooks/${c.req.param('hookId')}`, 'pinged');
  });

  // Members
  const showMembers = async (c: Ctx, flash: Flash, status = 200) => {
    const n = await nav(c);
    const principal = c.get('principal');
    const teamId = n.current!.project.teamId;
    const members = await services.members.list(principal, teamId);
    const invitations = n.current!.role === 'admin' || n.current!.role === 'owner' ? await services.members.listInvitations(principal, teamId) : null;
    return render(c, services, <MembersPage nav={n} members={members} invitations={invitations} flash={flash} />, status);
  };
  route('get', '/members', (c) => showMembers(c, flashOf(c)));
  route('post', '/members/invite', async (c) => {
    const f = await formFields(c);
    try {
      const n = await nav(c);
      await services.members.invite(c.get('principal'), parseWith(invitationCreate, { teamId: n.current!.project.teamId, email: f.email ?? '', role: f.role ?? '' }));
      return done(c, '/members', 'invited');
    } catch (err) {
      const p = problem(err);
      return showMembers(c, { error: p.error }, p.status);
    }
  });
  route('post', '/members/:memberId/role', async (c) => {
    const f = await formFields(c);
    try {
      await services.members.updateRole(c.get('principal'), c.req.param('memberId') ?? '', parseWith(memberUpdate, { role: f.role ?? '' }).role);
      return done(c, '/members', 'role');
    } catch (err) {
      const p = problem(err);
      return showMembers(c, { error: p.error }, p.status);
    }
  });
  route('post', '/members/:memberId/remove', async (c) => {
    try {
      await services.members.remove(c.get('principal'), c.req.param('memberId') ?? '');
      return done(c, '/members', 'removed');
    } catch (err) {
      const p = problem(err);
      return showMembers(c, { error: p.error }, p.status);
    }
  });
}
