import { sql, type Kysely } from 'kysely';
import type { PackedHistogramSql } from '../db/dialect.js';
import { COUNTERS } from './caseDay.js';

/** Untyped, as insights/rollup.ts. */
type AnyDb = Kysely<any>;

const KEY = 'project_id, all_branches, branch, day, case_id';
const COUNTER_LIST = COUNTERS.join(', ');
const SUMS = COUNTERS.map((c) => `sum(${c}) as ${c}`).join(', ');
const ADDED = COUNTERS.map((c) => `${c} = insight_rollups.${c} + excluded.${c}`).join(', ');
const ZERO = [...COUNTERS.map((c) => `r.${c} = 0`), 'length(r.histogram) = 0'].join(' and ');
/** The branch's rows, and the every-branch rows (branch ''): what each pending row adds to. */
const SCOPES = [
  { all: 0, branch: 'p.branch' },
  { all: 1, branch: "''" },
] as const;

/**
 * Folds up to `limit` of the oldest pending rows in a few set-based statements, where the database
 * adds packed histograms up itself (`DialectSupport.packedHistograms`: SQLite). The same result as
 * the fold in JavaScript (insights/rollup.ts), without building an object per pending and rollup
 * row: that fold spent 30–50 µs per result of sustained ingestion reading pending rows into
 * JavaScript, merging them, and reading and writing the rollups back; this one 10–12 µs
 * (docs/benchmarks.md). Written for SQLite, the one dialect with those functions: it uses `rowid`
 * and a compound SELECT in an upsert. In the caller's transaction; returns the rows moved.
 */
export async function foldPendingInSql(trx: AnyDb, histograms: PackedHistogramSql, limit: number): Promise<number> {
  const oldest = trx.selectFrom('insight_pending').select(['id', 'results']).orderBy('id').limit(limit).as('p');
  const taken = await trx
    .selectFrom(oldest)
    .select((eb) => [
      eb.fn.countAll<number>().as('n'),
      eb.fn.max('id').as('last'),
      eb.fn.sum<number>(eb.case().when('results', '<=', 0).then(1).else(0).end()).as('takenOut'),
    ])
    .executeTakeFirstOrThrow();
  const n = Number(taken.n);
  if (n === 0) return 0;
  const last = Number(taken.last);
  // The branch rows' parts once, then the every-branch rows from those parts (fewer rows than
  // pending: a case met in several batches is one part), in one upsert. Grouped by the case first:
  // the sort behind each GROUP BY then tells keys apart at their first column, where project, day
  // and branch (the same for nearly every row of a fold) took a comparison of some 50 equal bytes
  // each time; the upsert took 101–106 ms instead of 112–132 for 40,050 pending rows (docs/benchmarks.md).
  await sql`
    with parts as materialized (
      select project_id, day, branch, case_id, ${sql.raw(SUMS)}, max(latest_test_id) as latest_test_id, ${histograms.sum(sql.ref('histogram'))} as histogram
      from insight_pending where id <= ${last} group by case_id, project_id, day, branch)
    insert into insight_rollups (${sql.raw(KEY)}, ${sql.raw(COUNTER_LIST)}, latest_test_id, histogram)
    select * from (
      select project_id, 0, branch, day, case_id, ${sql.raw(COUNTER_LIST)}, latest_test_id, histogram from parts
      union all
      select project_id, 1, '', day, case_id, ${sql.raw(SUMS)}, max(latest_test_id), ${histograms.sum(sql.ref('histogram'))} from parts group by case_id, project_id, day
    ) where true
    on conflict (${sql.raw(KEY)}) do update set ${sql.raw(ADDED)},
      latest_test_id = case when excluded.latest_test_id > insight_rollups.latest_test_id then excluded.latest_test_id else insight_rollups.latest_test_id end,
      histogram = ${histograms.add(sql.ref('insight_rollups.histogram'), sql.ref('excluded.histogram'))}`.execute(trx);
  // Rows that came to nothing (every result of a case's day taken out) go, as the JavaScript fold
  // drops them. Only a pending row that takes results out can bring a row there; rows are found from
  // those by key, never by scanning the rollups.
  if (Number(taken.takenOut) > 0) {
    const emptied = SCOPES.map(
      (s) => sql`select r.rowid from insight_pending p join insight_rollups r on r.project_id = p.project_id and r.all_branches = ${sql.lit(s.all)}
        and r.branch = ${sql.raw(s.branch)} and r.day = p.day and r.case_id = p.case_id where p.id <= ${last} and p.results <= 0 and ${sql.raw(ZERO)}`,
    );
    await sql`delete from insight_rollups where rowid in (${sql.join(emptied, sql` union all `)})`.execute(trx);
  }
  // Fewer than `limit`: the fold took every pending row, and an unconditional DELETE lets SQLite
  // free the table's pages instead of deleting row by row (2 ms and no WAL for 40,000 rows against
  // 28–35 ms and 6 MB; migration 028 dropped the foreign key that kept SQLite from it).
  if (n < limit) await trx.deleteFrom('insight_pending').execute();
  else await trx.deleteFrom('insight_pending').where('id', '<=', last).execute();
  return n;
}
