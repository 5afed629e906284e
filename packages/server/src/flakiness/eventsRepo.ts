import type { QuarantineEvent } from '@testreport/contract';
import type { Db } from '../db/database.js';
import type { QuarantineEventsTable } from '../db/schema.js';

export type QuarantineEventRow = QuarantineEventsTable;

export const toQuarantineEvent = (r: QuarantineEventRow): QuarantineEvent => ({
  action: r.action as QuarantineEvent['action'],
  actor: { type: r.actor_type as QuarantineEvent['actor']['type'], id: r.actor_id, name: r.actor_name },
  reason: r.reason,
  score: r.score,
  at: r.created_at,
});

/** The audit trail of quarantine changes (docs/decisions.md §13). */
export function createQuarantineEventRepo(db: Db) {
  return {
    async insert(row: QuarantineEventRow) {
      await db.insertInto('quarantine_events').values(row).execute();
    },
    /** Newest first; ids are time-ordered, so they break ties of one millisecond. */
    async ofCase(caseId: string): Promise<QuarantineEventRow[]> {
      return db.selectFrom('quarantine_events').selectAll().where('case_id', '=', caseId).orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
    },
  };
}
