import type { Run, Webhook, WebhookFormat, WebhookCreate, WebhookDelivery, WebhookEvent, WebhookPayload, WebhookUpdate } from '@testreport/contract';
import type { Principal } from '../authz/principal.js';
import type { Updateable } from 'kysely';
import type { WebhooksTable } from '../db/schema.js';
import { afterCommit } from '../db/transaction.js';
import type { BackgroundJob, Deps } from '../deps.js';
import { NotFoundError, ValidationError } from '../lib/errors.js';
import { createSecretBox } from '../lib/secretBox.js';
import { newId } from '../lib/ids.js';
import { bool, fromJson, int } from '../db/values.js';
import { createWebhookRepo, type AttemptRow, type DeliveryRow, type WebhookRow } from './repo.js';
import { MAX_RETRIES, retryDelayMs } from './schedule.js';
import { sendDelivery } from './send.js';
import { checkWebhookUrlShape, resolvePublic, UnsafeWebhookTarget } from './ssrf.js';
import { createDeliveryWorker } from './worker.js';
import { deliveryBody, MAX_LISTED_FAILURES, NO_CHAT_FACTS, type ChatFacts, type FailureLine } from './messages.js';
import type { RunSummaryService } from '../runs/summary.js';

const toWebhook = (r: WebhookRow): Webhook => ({
  id: r.id,
  projectId: r.project_id,
  url: r.url,
  events: fromJson<WebhookEvent[]>(r.events, []),
  format: r.format as WebhookFormat,
  headers: fromJson<Record<string, string>>(r.headers, {}),
  hasSecret: r.secret !== null,
  isActive: bool(r.is_active),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** `url` is the run's dashboard page, so a chat message or CI comment can link to it. */
const runSummary = (run: Run, appUrl: string) => ({
  id: run.id, url: `${appUrl}/runs/${run.id}`, projectId: run.projectId, status: run.status, branch: run.branch, commitSha: run.commitSha, commitMessage: run.commitMessage,
  ciBuildUrl: run.ciBuildUrl, totalTests: run.totalTests ?? 0, passedTests: run.passedTests ?? 0, failedTests: run.failedTests ?? 0,
  skippedTests: run.skippedTests ?? 0, flakyTests: run.flakyTests ?? 0, passRate: run.passRate, duration: run.duration,
  ...ciBuildFields(run),
});

/**
 * Added to the §8 fields only for a run of a CI build or a repeat finish (issue 12): a late shard
 * or a CI re-run reopens a finished run, and its next finish is delivered again and says so.
 */
const ciBuildFields = (run: Run) =>
  run.finishedShards === null && run.finishCount <= 1
    ? {}
    : {
        finishCount: run.finishCount, reopened: run.finishCount > 1, finishReason: run.finishReason, group: run.group,
        shardTotal: run.shardTotal, finishedShards: run.finishedShards,
      };

/** How long a resolver may take when a webhook is saved; an unresolvable name is re-checked at delivery. */
const SAVE_LOOKUP_TIMEOUT_MS = 3000;

export function createWebhookService(deps: Deps, summaries: Pick<RunSummaryService, 'ofRun'>) {
  const { config, authz, logger } = deps;
  const repo = createWebhookRepo(deps.db);
  const nowIso = () => config.now().toISOString();
  // Signing secrets are stored sealed, bound to their webhook (docs/decisions.md §12, lib/secretBox.ts).
  const box = createSecretBox(config.secret, config.previousSecrets);

  /** The SSRF guard at save time (400 on `url`); delivery checks again on the connected address. */
  async function checkUrl(raw: string) {
    try {
      const url = checkWebhookUrlShape(raw, config.webhookAllowPrivate);
      const host = url.hostname.replace(/^\[|\]$/g, '');
      if (config.webhookAllowPrivate || /^[\d.]+$|:/.test(host)) return;
      await Promise.race([
        resolvePublic(host).catch((err: Error) => {
          if (err instanceof UnsafeWebhookTarget) throw err;
        }),
        new Promise((resolve) => setTimeout(resolve, SAVE_LOOKUP_TIMEOUT_MS).unref()),
      ]);
    } catch (err) {
      if (err instanceof UnsafeWebhookTarget) throw new ValidationError('url', 'invalid_value', err.message);
      throw err;
    }
  }

  async function reachable(principal: Principal, id: string) {
    const row = await repo.find(id);
    if (!row) throw new NotFoundError('Webhook');
    await authz.project(principal, row.project_id, 'webhooks', 'resource', 'webhook');
    return row;
  }

  /** The stored `payload` is the exact body sent, in the webhook's format, so every retry sends the same bytes. */
  function deliveryRow(webhook: WebhookRow, event: WebhookPayload['event'], data: WebhookPayload['data'], facts: ChatFacts = NO_CHAT_FACTS): DeliveryRow {
    const id = newId();
    const now = nowIso();
    const payload: WebhookPayload = { id, event, createdAt: now, data };
    return {
      id, webhook_id: webhook.id, project_id: webhook.project_id, event, payload: deliveryBody(webhook.format as WebhookFormat, payload, facts), status: 'pending',
      attempt_count: 0, next_attempt_at: now, locked_until: null, created_at: now, updated_at: now,
    };
  }

  async function toDeliveries(rows: DeliveryRow[]): Promise<WebhookDelivery[]> {
    const attempts = await repo.attemptsOf(rows.map((r) => r.id));
    return rows.map((r) => ({
      id: r.id,
      webhookId: r.webhook_id,
      event: r.event as WebhookDelivery['event'],
      status: r.status as WebhookDelivery['status'],
      attempts: attempts
        .filter((a) => a.delivery_id === r.id)
        .map((a) => ({ attempt: a.attempt, statusCode: a.status_code, error: a.error, durationMs: a.duration_ms, createdAt: a.created_at })),
      nextAttemptAt: r.status === 'pending' ? r.next_attempt_at : null,
      createdAt: r.created_at,
    }));
  }

  /** Sends one claimed delivery and records the attempt with the delivery's next state. */
  async function attempt(d: DeliveryRow): Promise<void> {
    const hook = await repo.find(d.webhook_id);
    if (!hook) return; // deleted meanwhile; its deliveries went with it
    const number = d.attempt_count + 1;
    const started = performance.now();
    const outcome = bool(hook.is_active) || d.event === 'ping'
      ? await sendDelivery({
          url: hook.url, body: d.payload, event: d.event, deliveryId: d.id, secret: hook.secret === null ? null : box.open(hook.secret, hook.id),
          headers: fromJson<Record<string, string>>(hook.headers, {}), timeoutMs: config.webhookTimeoutMs, allowPrivate: config.webhookAllowPrivate,
        })
      : { ok: false, statusCode: null, error: 'webhook is inactive', retryAfter: null };
    const now = config.now();
    const record: AttemptRow = {
      id: newId(), delivery_id: d.id, attempt: number, status_code: outcome.statusCode, error: outcome.error,
      duration_ms: Math.round(performance.now() - started), created_at: now.toISOString(),
    };
    const giveUp = !outcome.ok && (number > MAX_RETRIES || outcome.error === 'webhook is inactive');
    const status = outcome.ok ? 'succeeded' : giveUp ? 'failed' : 'pending';
    const next = status === 'pending' ? new Date(now.getTime() + retryDelayMs(number, config.webhookRetryBaseMs, outcome.retryAfter, now)).toISOString() : null;
    const held = await repo.recordAttempt(record, { attempt_count: number, status, next_attempt_at: next, locked_until: null, updated_at: now.toISOString() }, d.locked_until!);
    if (!held) {
      logger.warn(`webhook delivery ${d.id} attempt ${number}: lease expired before the outcome was recorded; the new lease holder retries`);
      return;
    }
    if (!outcome.ok) logger.warn(`webhook delivery ${d.id} attempt ${number} failed: ${outcome.error} (${status})`);
  }

  const worker = createDeliveryWorker({ repo, config, logger, attempt });

  async function chatFacts(runId: string): Promise<ChatFacts> {
    const s = await summaries.ofRun(runId, MAX_LISTED_FAILURES);
    if (!s) return NO_CHAT_FACTS;
    const line = (f: { fullTitle: string; title: string; filePath: string | null; error: string | null; owners: string[] }): FailureLine => ({
      title: f.fullTitle || f.title, filePath: f.filePath, errorMessage: f.error, owners: f.owners,
    });
    return {
      failures: s.failed.items.map(line),
      newFailures: s.base.run ? { base: s.base.branch, total: s.newFailures.total, items: s.newFailures.items.map(line) } : null,
    };
  }

  deps.events.on('run.finished', async ({ run }) => {
    const hooks = await repo.activeByProject(run.projectId);
    const rows: DeliveryRow[] = [];
    // Chat messages list the first failures and the new ones (the run summary's comparison with the
    // project's default branch); read once, and only when a chat webhook will show them.
    const chat = hooks.some((h) => h.format !== 'generic');
    const facts = chat && (run.failedTests ?? 0) > 0 ? await chatFacts(run.id) : NO_CHAT_FACTS;
    for (const hook of hooks) {
      const events = fromJson<WebhookEvent[]>(hook.events, []);
      if (events.includes('run.completed')) rows.push(deliveryRow(hook, 'run.completed', { run: runSummary(run, config.publicUrl) }, facts));
      if (events.includes('run.failed') && (run.failedTests ?? 0) > 0) rows.push(deliveryRow(hook, 'run.failed', { run: runSummary(run, config.publicUrl) }, facts));
    }
    // The outbox rows commit with the finished run (the emitter's transaction) before anything is
    // sent: a crash loses neither, and the worker is woken only once they are visible.
    await repo.insertDeliveries(rows);
    if (rows.length) afterCommit(() => worker.kick());
  }, { durable: true });

  // Quarantine changes (docs/decisions.md §13) queue their deliveries in the transaction of the change.
  deps.events.on('test.quarantine', async ({ change }) => {
    const event = change.action === 'quarantined' ? 'test.quarantined' : 'test.released';
    const hooks = (await repo.activeByProject(change.projectId)).filter((h) => fromJson<WebhookEvent[]>(h.events, []).includes(event));
    if (hooks.length === 0) return;
    const { projectId, caseId, testId, title, fullTitle, filePath, owners, isBroken, action, actor, reason, score, at } = change;
    const test = { testId, caseId, projectId, title, fullTitle, filePath, url: `${config.publicUrl}/tests/${testId}`, owners, isBroken, action, actor, reason, score, at };
    await repo.insertDeliveries(hooks.map((hook) => deliveryRow(hook, event, { test })));
    afterCommit(() => worker.kick());
  }, { durable: true });

  // Accepted baselines (docs/decisions.md §13), likewise queued in the transaction of the acceptance.
  deps.events.on('baselines.accepted', async ({ accepted }) => {
    const hooks = (await repo.activeByProject(accepted.projectId)).filter((h) => fromJson<WebhookEvent[]>(h.events, []).includes('baselines.accepted'));
    if (hooks.length === 0) return;
    await repo.insertDeliveries(hooks.map((hook) => deliveryRow(hook, 'baselines.accepted', { baselines: accepted })));
    afterCommit(() => worker.kick());
  }, { durable: true });

  return {
    job: worker.job as BackgroundJob,
    /** Runs one pass of the worker: sends every due delivery once. For tests and the worker loop. */
    deliverDueOnce: worker.deliverDueOnce,

    async list(principal: Principal, projectId: string): Promise<{ data: Webhook[] }> {
      await authz.project(principal, projectId, 'webhooks', 'param');
      return { data: (await repo.listByProject(projectId)).map(toWebhook) };
    },

    async get(principal: Principal, id: string): Promise<Webhook> {
      return toWebhook(await reachable(principal, id));
    },

    async create(principal: Principal, input: WebhookCreate): Promise<Webhook> {
      await authz.project(principal, input.projectId, 'webhooks', 'param');
      await checkUrl(input.url);
      const now = nowIso();
      const id = newId();
      const row: WebhookRow = {
        id, project_id: input.projectId, url: input.url, events: JSON.stringify([...new Set(input.events)]), format: input.format ?? 'generic',
        headers: JSON.stringify(input.headers ?? {}), secret: input.secret ? box.seal(input.secret, id) : null,
        // Both spellings of the spec are accepted; isActive wins when both are sent.
        is_active: int(input.isActive ?? input.active ?? true), created_at: now, updated_at: now,
      };
      await repo.insert(row);
      return toWebhook(row);
    },

    async update(principal: Principal, id: string, input: WebhookUpdate): Promise<Webhook> {
      const row = await reachable(principal, id);
      if (input.url !== undefined) await checkUrl(input.url);
      const patch: Updateable<WebhooksTable> = { updated_at: nowIso() };
      if (input.url !== undefined) patch.url = input.url;
      if (input.events !== undefined) patch.events = JSON.stringify([...new Set(input.events)]);
      if (input.format !== undefined) patch.format = input.format;
      if (input.headers !== undefined) patch.headers = JSON.stringify(input.headers);
      if (input.secret !== undefined) patch.secret = input.secret === null ? null : box.seal(input.secret, id);
      const active = input.isActive ?? input.active;
      if (active !== undefined) patch.is_active = int(active);
      await repo.update(id, patch);
      return toWebhook({ ...row, ...patch });
    },

    /** Re-seals secrets sealed under a previous server secret with the current one; answers how many. */
    async resealSecrets(): Promise<number> {
      let n = 0;
      for (const r of await repo.withSecret()) {
        if (box.isCurrent(r.secret)) continue;
        await repo.update(r.id, { secret: box.seal(box.open(r.secret, r.id), r.id) });
        n++;
      }
      return n;
    },

    async remove(principal: Principal, id: string) {
      await reachable(principal, id);
      await repo.delete(id);
      return { success: true as const, message: 'Webhook deleted' };
    },

    async deliveries(principal: Principal, id: string, q: { limit: number; offset: number }) {
      await reachable(principal, id);
      const { rows, total } = await repo.listDeliveries(id, q.limit, q.offset);
      return { data: await toDeliveries(rows), total, limit: q.limit, offset: q.offset };
    },

    /** Queues a `ping` (sent even to an inactive webhook: it is how a user checks the receiver). */
    async test(principal: Principal, id: string): Promise<WebhookDelivery> {
      const row = await reachable(principal, id);
      const delivery = deliveryRow(row, 'ping', { webhookId: row.id });
      await repo.insertDeliveries([delivery]);
      // Woken after the request's transaction commits: a pass started inside it would open a second
      // transaction on SQLite's one connection and fail.
      afterCommit(() => worker.kick());
      return (await toDeliveries([delivery]))[0];
    },
  };
}
export type WebhookService = ReturnType<typeof createWebhookService>;
