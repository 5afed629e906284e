import type { Kysely } from 'kysely';
import { rowsPerStatement } from '../db/batch.js';
import { writeMany } from '../db/bulk.js';

/**
 * Writes to migration 017's tables, where the set-based rebuild (insights/upkeep.ts
 * `countAllResults`) stages the aggregates before they are folded (insights/rollup.ts), and where
 * migration 022's down puts folded rows back.
 */
type AnyDb = Kysely<any>;

export interface DayDelta { project_id: string; day: string; branch: string; case_id: string; results: number; passed: number; failed: number; flaky: number; skipped: number; latest_test_id: string }
export interface DurationDelta { project_id: string; day: string; branch: string; case_id: string; bucket: number; n: number; total_ms: number }

const DAY_ROWS = rowsPerStatement(10, 500);
const DURATION_ROWS = rowsPerStatement(7, 500);

/**
 * Adds day rows to `insight_case_days` (increments, so concurrent batches of several servers add up
 * instead of overwriting each other); rows in key order, so they lock rows in one order.
 */
export async function addDays(db: AnyDb, days: readonly DayDelta[]): Promise<void> {
  await writeMany(db, days as unknown as Record<string, unknown>[], (part) =>
    db
      .insertInto('insight_case_days')
      .values(part as unknown as DayDelta[])
      .onConflict((oc) => oc.columns(['project_id', 'day', 'branch', 'case_id']).doUpdateSet((eb) => ({
        results: eb('insight_case_days.results', '+', eb.ref('excluded.results')),
        passed: eb('insight_case_days.passed', '+', eb.ref('excluded.passed')),
        failed: eb('insight_case_days.failed', '+', eb.ref('excluded.failed')),
        flaky: eb('insight_case_days.flaky', '+', eb.ref('excluded.flaky')),
        skipped: eb('insight_case_days.skipped', '+', eb.ref('excluded.skipped')),
        latest_test_id: eb.case().when('excluded.latest_test_id', '>', eb.ref('insight_case_days.latest_test_id')).then(eb.ref('excluded.latest_test_id')).else(eb.ref('insight_case_days.latest_test_id')).end(),
      }))), DAY_ROWS, 'insight_case_days upsert');
}

/** Adds histogram rows to `insight_case_durations`, as `addDays`. */
export async function addDurations(db: AnyDb, durations: readonly DurationDelta[]): Promise<void> {
  await writeMany(db, durations as unknown as Record<string, unknown>[], (part) =>
    db
      .insertInto('insight_case_durations')
      .values(part as unknown as DurationDelta[])
      .onConflict((oc) => oc.columns(['project_id', 'day', 'branch', 'case_id', 'bucket']).doUpdateSet((eb) => ({
        n: eb('insight_case_durations.n', '+', eb.ref('excluded.n')),
        total_ms: eb('insight_case_durations.total_ms', '+', eb.ref('excluded.total_ms')),
      }))), DURATION_ROWS, 'insight_case_durations upsert');
}

