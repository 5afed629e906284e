import { WEBHOOK_EVENTS, WEBHOOK_FORMATS, type WebhookEvent, type WebhookFormat } from '@testreport/contract/core';
import type { BodyOf, QueryOf, ResponseOf } from '@testreport/contract';
import type { Command } from 'commander';
import { command } from '../lib/action.js';
import type { Context } from '../lib/context.js';
import { UsageError } from '../lib/errors.js';
import { boolFlag, ms, page, pageNote, pageOptions, when } from '../lib/flags.js';
import type { Output } from '../lib/output.js';

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

/** `--format`: checked here so a typo is a usage error before anything is sent. */
export function webhookFormat(value: string | undefined): WebhookFormat | undefined {
  if (value === undefined) return undefined;
  const f = value.trim().toLowerCase();
  if (!(WEBHOOK_FORMATS as readonly string[]).includes(f)) throw new UsageError(`--format: unknown format "${value}" (use ${WEBHOOK_FORMATS.join(', ')})`);
  return f as WebhookFormat;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** Webhooks of the project in force. */
export async function listWebhooks(ctx: Context): Promise<ResponseOf<'webhooks.list'>> {
  const client = ctx.client();
  return client.webhooks.list({ projectId: await ctx.projectId(client) });
}

/** Creates a webhook in the project in force; the secret is stored, never shown again. */
export async function createWebhook(ctx: Context, input: Omit<BodyOf<'webhooks.create'>, 'projectId'>): Promise<ResponseOf<'webhooks.create'>> {
  const client = ctx.client();
  return client.webhooks.create({ projectId: await ctx.projectId(client), ...input });
}

/** Changes only what `changes` holds (`secret: null` stops signing). */
export async function updateWebhook(ctx: Context, input: { webhookId: string; changes: BodyOf<'webhooks.update'> }): Promise<ResponseOf<'webhooks.update'>> {
  if (Object.keys(input.changes).length === 0) throw new UsageError('nothing to change: pass --webhook-url, --events, --header, --secret, --remove-secret or --active');
  return ctx.client().webhooks.update(input.webhookId, input.changes);
}

export async function deleteWebhook(ctx: Context, input: { webhookId: string }): Promise<ResponseOf<'webhooks.delete'>> {
  await ctx.confirm(`Delete webhook ${input.webhookId}`);
  return ctx.client().webhooks.delete(input.webhookId);
}

/** Sends a ping delivery now; the result says how it went. */
export async function testWebhook(ctx: Context, input: { webhookId: string }): Promise<ResponseOf<'webhooks.test'>> {
  return ctx.client().webhooks.test(input.webhookId);
}

/** The delivery log of a webhook, newest first. */
export async function listDeliveries(ctx: Context, input: { webhookId: string } & QueryOf<'webhooks.deliveries'>): Promise<ResponseOf<'webhooks.deliveries'>> {
  const { webhookId, ...query } = input;
  return ctx.client().webhooks.deliveries(webhookId, query);
}

type Delivery = ResponseOf<'webhooks.deliveries'>['data'][number];

/** The last attempt's answer: `HTTP 204`, the connection error, or null before any attempt. */
function lastAnswer(d: Pick<Delivery, 'attempts'>, withDuration: boolean): string | null {
  const a = d.attempts[d.attempts.length - 1];
  if (!a) return null;
  if (!a.statusCode) return a.error ?? null;
  return withDuration ? `HTTP ${a.statusCode} in ${ms(a.durationMs)}` : `HTTP ${a.statusCode}`;
}

function printWebhookList(out: Output, res: ResponseOf<'webhooks.list'>): void {
  out.table(res.data, [
    { header: 'ID', value: (w) => w.id },
    { header: 'URL', value: (w) => w.url, max: 60 },
    { header: 'EVENTS', value: (w) => w.events },
    { header: 'FORMAT', value: (w) => w.format },
    { header: 'ACTIVE', value: (w) => w.isActive },
    { header: 'SIGNED', value: (w) => w.hasSecret },
    { header: 'HEADERS', value: (w) => Object.keys(w.headers ?? {}) },
    { header: 'CREATED', value: (w) => when(w.createdAt) },
  ], 'No webhooks.');
}

function printDeliveries(out: Output, res: ResponseOf<'webhooks.deliveries'>): void {
  out.table(res.data, [
    { header: 'DELIVERY', value: (d) => d.id },
    { header: 'EVENT', value: (d) => d.event },
    { header: 'STATUS', value: (d) => d.status, color: (t) => out.status(t) },
    { header: 'ATTEMPTS', value: (d) => d.attempts.length, align: 'right' },
    { header: 'LAST ANSWER', value: (d) => lastAnswer(d, true), max: 50 },
    { header: 'NEXT TRY', value: (d) => when(d.nextAttemptAt) },
    { header: 'CREATED', value: (d) => when(d.createdAt) },
  ], 'No deliveries yet.');
  const note = pageNote(res);
  if (note) out.note(note);
}

interface WebhookFlags {
  webhookUrl?: string;
  events?: string;
  format?: string;
  header?: string[];
  secret?: string;
  removeSecret?: boolean;
  active?: string;
}

function changesFrom(flags: WebhookFlags): BodyOf<'webhooks.update'> {
  if (flags.secret && flags.removeSecret) throw new UsageError('--secret and --remove-secret cannot be used together');
  return {
    ...(flags.webhookUrl ? { url: flags.webhookUrl } : {}),
    ...(flags.events ? { events: events(flags.events) } : {}),
    ...(flags.format ? { format: webhookFormat(flags.format) } : {}),
    ...(flags.header ? { headers: headers(flags.header) } : {}),
    ...(flags.secret ? { secret: flags.secret } : flags.removeSecret ? { secret: null } : {}),
    ...(flags.active !== undefined ? { isActive: boolFlag('--active', flags.active) } : {}),
  };
}

export function registerWebhooks(program: Command): void {
  const webhooks = program.command('webhooks').summary('webhooks sent when a run finishes').addHelpText('after', `
Examples:
  $ reporter webhooks create https://hooks.example.com/testreport --events run.failed --secret "$SECRET"
  $ reporter webhooks create "$SLACK_WEBHOOK_URL" --format slack --events run.failed
  $ reporter webhooks create https://ci.example.com/hook --events run.completed,run.failed --header "Authorization=Bearer …"
  $ reporter webhooks update 0193b7c5-… --active off
  $ reporter webhooks test 0193b7c5-…          # sends a ping delivery now
  $ reporter webhooks deliveries 0193b7c5-…`);

  webhooks.command('list').description('list webhooks of the project').action(command({ run: listWebhooks, print: printWebhookList }));

  webhooks
    .command('create')
    .description('create a webhook (https, publicly reachable)')
    .argument('<url>', 'where deliveries are POSTed')
    .option('--events <list>', `comma-separated: ${WEBHOOK_EVENTS.join(', ')}`, WEBHOOK_EVENTS.join(','))
    .option('--format <format>', `body of each delivery: ${WEBHOOK_FORMATS.join(', ')} (generic = signed testreport JSON)`, 'generic')
    .option('--header <name=value>', 'header sent on every delivery (repeatable)', collect)
    .option('--secret <secret>', 'signs each delivery (X-Testreport-Signature: hex HMAC-SHA256 of the body)')
    .option('--active <on|off>', 'created active unless off', 'on')
    .action(
      command({
        input: ([url], flags: WebhookFlags) => ({
          url,
          events: events(flags.events)!,
          format: webhookFormat(flags.format) ?? 'generic',
          ...(flags.header ? { headers: headers(flags.header) } : {}),
          ...(flags.secret ? { secret: flags.secret } : {}),
          isActive: boolFlag('--active', flags.active) ?? true,
        }),
        run: createWebhook,
        print: (out, res) => out.success(`Webhook ${res.id} created: ${res.url} (${res.format}; ${res.events.join(', ')})`),
      }),
    );

  webhooks
    .command('update')
    .description('change a webhook; only the given options change')
    .argument('<webhookId>')
    .option('--webhook-url <url>', 'new delivery URL (--url is the server address)')
    .option('--events <list>', `comma-separated: ${WEBHOOK_EVENTS.join(', ')}`)
    .option('--format <format>', `body of each delivery: ${WEBHOOK_FORMATS.join(', ')} (generic = signed testreport JSON)`)
    .option('--header <name=value>', 'replaces all headers (repeatable)', collect)
    .option('--secret <secret>', 'new signing secret')
    .option('--remove-secret', 'stop signing deliveries')
    .option('--active <on|off>', 'turn deliveries on or off')
    .action(
      command({
        input: ([webhookId], flags: WebhookFlags) => ({ webhookId, changes: changesFrom(flags) }),
        run: updateWebhook,
        print: (out, _res, { webhookId }) => out.success(`Webhook ${webhookId} updated`),
      }),
    );

  webhooks
    .command('delete')
    .description('delete a webhook (asks first; --yes to skip)')
    .argument('<webhookId>')
    .action(
      command({
        input: ([webhookId]) => ({ webhookId }),
        run: deleteWebhook,
        print: (out, _res, { webhookId }) => out.success(`Webhook ${webhookId} deleted`),
      }),
    );

  webhooks
    .command('test')
    .description('send a ping delivery now and show how it went')
    .argument('<webhookId>')
    .action(
      command({
        input: ([webhookId]) => ({ webhookId }),
        run: testWebhook,
        print: (out, d) => out.line(`${out.status(d.status)}: ping delivery ${d.id} (${d.attempts.length ? lastAnswer(d, false) ?? 'no answer' : 'queued'})`),
      }),
    );

  const deliveries = webhooks
    .command('deliveries')
    .description('the delivery log of a webhook, newest first')
    .argument('<webhookId>');
  for (const o of pageOptions()) deliveries.addOption(o);
  deliveries.action(
    command({
      input: ([webhookId], flags: { limit?: string; offset?: string }) => ({ webhookId, ...page(flags) }),
      run: listDeliveries,
      print: printDeliveries,
    }),
  );
}
