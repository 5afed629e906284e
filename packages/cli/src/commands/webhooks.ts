import { WEBHOOK_EVENTS, type WebhookEvent } from '@testreport/contract';
import type { Command } from 'commander';
import { action } from '../lib/action.js';
import { UsageError } from '../lib/errors.js';
import { boolFlag, ms, page, pageNote, pageOptions, when } from '../lib/flags.js';

function events(value: string | undefined): WebhookEvent[] | undefined {
  if (value === undefined) return undefined;
  const list = value.split(',').map((e) => e.trim()).filter(Boolean);
  for (const e of list) {
    if (!(WEBHOOK_EVENTS as readonly string[]).includes(e)) throw new UsageError(`--events: unknown event "${e}" (use ${WEBHOOK_EVENTS.join(', ')})`);
  }
  if (list.length === 0) throw new UsageError('--events needs at least one event');
  return list as WebhookEvent[];
}

function headers(list: string[] | undefined): Record<string, string> | undefined {
  if (!list) return undefined;
  const out: Record<string, string> = {};
  for (const h of list) {
    const i = h.indexOf('=');
    const name = i > 0 ? h.slice(0, i).trim() : h.indexOf(':') > 0 ? h.slice(0, h.indexOf(':')).trim() : '';
    if (!name) throw new UsageError(`--header must be "Name=value", got "${h}"`);
    out[name] = h.slice((i > 0 ? i : h.indexOf(':')) + 1).trim();
  }
  return out;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

interface WebhookFlags {
  webhookUrl?: string;
  events?: string;
  header?: string[];
  secret?: string;
  removeSecret?: boolean;
  active?: string;
}

export function registerWebhooks(program: Command): void {
  const webhooks = program.command('webhooks').summary('webhooks sent when a run finishes').addHelpText('after', `
Examples:
  $ reporter webhooks create https://hooks.example.com/testreport --events run.failed --secret "$SECRET"
  $ reporter webhooks create https://ci.example.com/hook --events run.completed,run.failed --header "Authorization=Bearer …"
  $ reporter webhooks update 0193b7c5-… --active off
  $ reporter webhooks test 0193b7c5-…          # sends a ping delivery now
  $ reporter webhooks deliveries 0193b7c5-…`);

  webhooks
    .command('list')
    .description('list webhooks of the project')
    .action(
      action(async (ctx) => {
        const client = ctx.client();
        const res = await client.webhooks.list({ projectId: await ctx.projectId(client) });
        if (ctx.out.json) return ctx.out.data(res);
        ctx.out.table(res.data, [
          { header: 'ID', value: (w) => w.id },
          { header: 'URL', value: (w) => w.url, max: 60 },
          { header: 'EVENTS', value: (w) => w.events },
          { header: 'ACTIVE', value: (w) => w.isActive },
          { header: 'SIGNED', value: (w) => w.hasSecret },
          { header: 'HEADERS', value: (w) => Object.keys(w.headers ?? {}) },
          { header: 'CREATED', value: (w) => when(w.createdAt) },
        ], 'No webhooks.');
      }),
    );

  webhooks
    .command('create')
    .description('create a webhook (https, publicly reachable)')
    .argument('<url>', 'where deliveries are POSTed')
    .option('--events <list>', `comma-separated: ${WEBHOOK_EVENTS.join(', ')}`, WEBHOOK_EVENTS.join(','))
    .option('--header <name=value>', 'header sent on every delivery (repeatable)', collect)
    .option('--secret <secret>', 'signs each delivery (X-Testreport-Signature: hex HMAC-SHA256 of the body)')
    .option('--active <on|off>', 'created active unless off', 'on')
    .action(
      action(async (ctx, url: string, flags: WebhookFlags) => {
        const client = ctx.client();
        const res = await client.webhooks.create({
          projectId: await ctx.projectId(client),
          url,
          events: events(flags.events)!,
          ...(flags.header ? { headers: headers(flags.header) } : {}),
          ...(flags.secret ? { secret: flags.secret } : {}),
          isActive: boolFlag('--active', flags.active) ?? true,
        });
        if (ctx.out.json) return ctx.out.data(res);
        ctx.out.success(`Webhook ${res.id} created: ${res.url} (${res.events.join(', ')})`);
      }),
    );

  webhooks
    .command('update')
    .description('change a webhook; only the given options change')
    .argument('<webhookId>')
    .option('--webhook-url <url>', 'new delivery URL (--url is the server address)')
    .option('--events <list>', `comma-separated: ${WEBHOOK_EVENTS.join(', ')}`)
    .option('--header <name=value>', 'replaces all headers (repeatable)', collect)
    .option('--secret <secret>', 'new signing secret')
    .option('--remove-secret', 'stop signing deliveries')
    .option('--active <on|off>', 'turn deliveries on or off')
    .action(
      action(async (ctx, id: string, flags: WebhookFlags) => {
        if (flags.secret && flags.removeSecret) throw new UsageError('--secret and --remove-secret cannot be used together');
        const body = {
          ...(flags.webhookUrl ? { url: flags.webhookUrl } : {}),
          ...(flags.events ? { events: events(flags.events) } : {}),
          ...(flags.header ? { headers: headers(flags.header) } : {}),
          ...(flags.secret ? { secret: flags.secret } : flags.removeSecret ? { secret: null } : {}),
          ...(flags.active !== undefined ? { isActive: boolFlag('--active', flags.active) } : {}),
        };
        if (Object.keys(body).length === 0) throw new UsageError('nothing to change: pass --webhook-url, --events, --header, --secret, --remove-secret or --active');
        const res = await ctx.client().webhooks.update(id, body);
        if (ctx.out.json) return ctx.out.data(res);
        ctx.out.success(`Webhook ${id} updated`);
      }),
    );

  webhooks
    .command('delete')
    .description('delete a webhook (asks first; --yes to skip)')
    .argument('<webhookId>')
    .action(
      action(async (ctx, id: string) => {
        await ctx.confirm(`Delete webhook ${id}`);
        const res = await ctx.client().webhooks.delete(id);
        if (ctx.out.json) return ctx.out.data(res);
        ctx.out.success(`Webhook ${id} deleted`);
      }),
    );

  webhooks
    .command('test')
    .description('send a ping delivery now and show how it went')
    .argument('<webhookId>')
    .action(
      action(async (ctx, id: string) => {
        const d = await ctx.client().webhooks.test(id);
        if (ctx.out.json) return ctx.out.data(d);
        const last = d.attempts[d.attempts.length - 1];
        const how = last ? (last.statusCode ? `HTTP ${last.statusCode}` : last.error ?? 'no answer') : 'queued';
        ctx.out.line(`${ctx.out.status(d.status)}: ping delivery ${d.id} (${how})`);
      }),
    );

  const deliveries = webhooks
    .command('deliveries')
    .description('the delivery log of a webhook, newest first')
    .argument('<webhookId>');
  for (const o of pageOptions()) deliveries.addOption(o);
  deliveries.action(
    action(async (ctx, id: string, flags: { limit?: string; offset?: string }) => {
      const p = page(flags);
      const res = await ctx.client().webhooks.deliveries(id, p);
      if (ctx.out.json) return ctx.out.data(res);
      ctx.out.table(res.data, [
        { header: 'DELIVERY', value: (d) => d.id },
        { header: 'EVENT', value: (d) => d.event },
        { header: 'STATUS', value: (d) => d.status, color: (t) => ctx.out.status(t) },
        { header: 'ATTEMPTS', value: (d) => d.attempts.length, align: 'right' },
        { header: 'LAST ANSWER', value: (d) => { const a = d.attempts[d.attempts.length - 1]; return a ? (a.statusCode ? `HTTP ${a.statusCode} in ${ms(a.durationMs)}` : a.error) : null; }, max: 50 },
        { header: 'NEXT TRY', value: (d) => when(d.nextAttemptAt) },
        { header: 'CREATED', value: (d) => when(d.createdAt) },
      ], 'No deliveries yet.');
      const note = pageNote(res.total, p.limit, p.offset, res.data.length);
      if (note) ctx.out.note(note);
    }),
  );
}
