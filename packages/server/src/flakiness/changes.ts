import type { QuarantineEvent } from '@testreport/contract';
import type { Deps } from '../deps.js';
import { fromJson } from '../db/values.js';
import { newId } from '../lib/ids.js';
import { createQuarantineEventRepo } from './eventsRepo.js';

export type Actor = QuarantineEvent['actor'];
export const POLICY_ACTORS = {
  quarantine: { type: 'policy', id: 'auto-quarantine', name: 'Auto-quarantine' },
  release: { type: 'policy', id: 'auto-release', name: 'Auto-release' },
} as const satisfies Record<string, Actor>;

export interface QuarantineChange {
  caseId: string;
  on: boolean;
  actor: Actor;
  reason: string;
  /** 'manual' or 'auto': what quarantine_source records. */
  source: 'manual' | 'auto';
  /** Known to the policy that decided; looked up for a change by hand. */
  isBroken: boolean;
}

/**
 * The one way a case's quarantine changes, by hand or by policy. The UPDATE is conditional on the
 * opposite state, so when several servers (or a person and a policy) change the same case at once,
 * exactly one UPDATE matches the row and only its caller writes the event and queues the webhooks:
 * the database decides, no process remembers anything. Call it inside a transaction, so that the
 * change, its event and its deliveries commit together.
 */
export function createQuarantineChanges(deps: Deps) {
  const { db } = deps;
  const events = createQuarantineEventRepo(db);
  return async function apply(c: QuarantineChange): Promise<boolean> {
    const at = deps.config.now().toISOString();
    const res = await db
      .updateTable('test_cases')
      .set(
        c.on
          ? { is_quarantined: 1, quarantined_at: at, quarantine_source: c.source, updated_at: at }
          : { is_quarantined: 0, quarantined_at: null, quarantine_source: null, released_at: at, updated_at: at },
      )
      .where('id', '=', c.caseId)
      .where('is_quarantined', '=', c.on ? 0 : 1)
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) !== 1) return false;
    const row = await db
      .selectFrom('test_cases')
      .select(['project_id', 'latest_test_id', 'title', 'full_title', 'file_path', 'flakiness_score', 'owners'])
      .where('id', '=', c.caseId)
      .executeTakeFirstOrThrow();
    const action = c.on ? 'quarantined' : 'released';
    await events.insert({
      id: newId(), project_id: row.project_id, case_id: c.caseId, action, actor_type: c.actor.type, actor_id: c.actor.id, actor_name: c.actor.name,
      reason: c.reason, score: row.flakiness_score, created_at: at,
    });
    await deps.events.emit('test.quarantine', {
      change: {
        projectId: row.project_id, caseId: c.caseId, testId: row.latest_test_id!, title: row.title, fullTitle: row.full_title, filePath: row.file_path || null,
        owners: fromJson<string[]>(row.owners, []), isBroken: c.isBroken, action, actor: c.actor, reason: c.reason, score: row.flakiness_score, at,
      },
    });
    return true;
  };
}
