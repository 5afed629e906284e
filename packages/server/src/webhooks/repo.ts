import type { Selectable, Updateable } from 'kysely';
import type { Db } from '../db/database.js';
import type { WebhookAttemptsTable, WebhookDeliveriesTable, WebhooksTable } from '../db/schema.js';

export type WebhookRow = Selectable<WebhooksTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
export type AttemptRow = Selectable<WebhookAttemptsTable>;

export function createWebhookRepo(db: Db) {
  return {
    db,
    insert: (row: WebhookRow) => db.insertInto('webhooks').values(row).execute(),
    find: (id: string) => db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst(),
    listByProject: (projectId: string) => db.selectFrom('webhooks').selectAll().where('project_id', '=', projectId).orderBy('id', 'desc').execute(),
    activeByProject: (projectId: string) =>
      db.selectFrom('webhooks').selectAll().where('project_id', '=', projectId).where('is_active', '=', 1).orderBy('id').execute(),
    update: (id: string, patch: Updateable<WebhooksTable>) => db.updateTable('webhooks').set(patch).where('id', '=', id).execute(),
    delete: (id: string) => db.deleteFrom('webhooks').where('id', '=', id).execute(),

    insertDeliveries: (rows: DeliveryRow[]) => (rows.length ? db.insertInto('webhook_deliveries').values(rows).execute() : Promise.resolve()),
    findDelivery: (id: string) => db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst(),
    async listDeliveries(webhookId: string, limit: number, offset: number) {
      const rows = await db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhookId).orderBy('id', 'desc').limit(limit).offset(offset).execute();
      const { total } = await db
        .selectFrom('webhook_deliveries')
        .select((eb) => eb.fn.countAll<number>().as('total'))
        .where('webhook_id', '=', webhookId)
        .executeTakeFirstOrThrow();
      return { rows, total: Number(total) };
    },
    attemptsOf: (deliveryIds: string[]) =>
      deliveryIds.length
        ? db.selectFrom('webhook_attempts').selectAll().where('delivery_id', 'in', deliveryIds).orderBy('attempt').execute()
        : Promise.resolve([] as AttemptRow[]),

    /** Pending deliveries that are due and not leased by a worker right now. */
    dueDeliveryIds: (now: string, limit: number) =>
      db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('status', '=', 'pending')
        .where('next_attempt_at', '<=', now)
        .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
        .orderBy('next_attempt_at')
        .limit(limit)
        .execute(),
    /** Takes the lease with a conditional update: of two workers racing for one delivery, exactly one wins. */
    async claim(id: string, now: string, lockedUntil: string): Promise<boolean> {
      const r = await db
        .updateTable('webhook_deliveries')
        .set({ locked_until: lockedUntil })
        .where('id', '=', id)
        .where('status', '=', 'pending')
        .where('next_attempt_at', '<=', now)
        .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },
    /** One attempt's record and the delivery's next state, together. */
    recordAttempt: (attempt: AttemptRow, patch: Updateable<WebhookDeliveriesTable>) =>
      db.transaction().execute(async (trx) => {
        await trx.insertInto('webhook_attempts').values(attempt).execute();
        await trx.updateTable('webhook_deliveries').set(patch).where('id', '=', attempt.delivery_id).execute();
      }),
  };
}
export type WebhookRepo = ReturnType<typeof createWebhookRepo>;
