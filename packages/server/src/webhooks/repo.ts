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
    withSecret: () => db.selectFrom('webhooks').select(['id', 'secret']).where('secret', 'is not', null).execute() as Promise<{ id: string; secret: string }[]>,

    insertDeliveries: (rows: DeliveryRow[]) => (rows.length ? db.insertInto('webhook_deliveries').values(rows).execute() : Promise.resolve()),
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

    /**
     * Leases up to `limit` due deliveries in one transaction and returns them. On PostgreSQL
     * `FOR UPDATE SKIP LOCKED` lets workers of several servers claim side by side without waiting on
     * or double-claiming each other's rows; SQLite's writing transaction serializes them instead
     * (the dialect drops the row-lock clause). Nothing is sent inside the transaction.
     */
    claimDue: (now: string, lockedUntil: string, limit: number): Promise<DeliveryRow[]> =>
      db.transaction().execute(async (trx) => {
        const due = await trx
          .selectFrom('webhook_deliveries')
          .selectAll()
          .where('status', '=', 'pending')
          .where('next_attempt_at', '<=', now)
          .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
          .orderBy('next_attempt_at')
          .limit(limit)
          .forUpdate()
          .skipLocked()
          .execute();
        if (due.length === 0) return [];
        await trx.updateTable('webhook_deliveries').set({ locked_until: lockedUntil }).where('id', 'in', due.map((d) => d.id)).execute();
        return due.map((d) => ({ ...d, locked_until: lockedUntil }));
      }),
    /**
     * One attempt's record and the delivery's next state, together, only while `lease` is still the
     * delivery's: a worker whose lease expired (and was taken over) records nothing. False then.
     */
    recordAttempt: (attempt: AttemptRow, patch: Updateable<WebhookDeliveriesTable>, lease: string): Promise<boolean> =>
      db.transaction().execute(async (trx) => {
        const r = await trx
          .updateTable('webhook_deliveries')
          .set(patch)
          .where('id', '=', attempt.delivery_id)
          .where('locked_until', '=', lease)
          .executeTakeFirst();
        if (Number(r.numUpdatedRows) !== 1) return false;
        await trx.insertInto('webhook_attempts').values(attempt).execute();
        return true;
      }),
  };
}
export type WebhookRepo = ReturnType<typeof createWebhookRepo>;
