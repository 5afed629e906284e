import type { Db } from '../db/database.js';
import type { QuarantineEventsTable } from '../db/schema.js';

export type QuarantineEventRow = QuarantineEventsTable;

/** The audit trail of quarantine changes (decisions §13). */
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
