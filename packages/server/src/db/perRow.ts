import type { CompiledQuery, InsertQueryBuilder, Kysely } from 'kysely';

/** A multi-row write built by a repository: `INSERT … VALUES <rows> [ON CONFLICT …] [RETURNING …]`. */
export interface RowsWrite {
  compile(): CompiledQuery;
  execute(): Promise<unknown[]>;
}
export type BuildWrite = (rows: readonly Record<string, unknown>[]) => RowsWrite;
/** Completes an INSERT whose rows are given (its ON CONFLICT and RETURNING clauses): `upsertMany`. */
export type FinishInsert = (insert: InsertQueryBuilder<any, any, any>) => RowsWrite;

/**
 * Prepares `sql` for running at once on the connection held by the caller, for a dialect whose
 * driver is synchronous underneath (better-sqlite3): no promise and result object per row.
 */
export type RunStatement = (sql: string) => (parameters: readonly unknown[]) => unknown[];

/** Stands for a column's value while the one-row statement is compiled; never reaches the database. */
const MARKER = '\u0000testreport-column\u0000';

/** A one-row statement compiled with a marker per column, ready to bind rows. */
interface RowStatement {
  compiled: CompiledQuery;
  /** For each parameter, the column whose value goes there, or null for a constant of the builder. */
  slots: (string | null)[];
}

/** Shapes kept compiled per database: a handful of statements, each per distinct column list. */
const MAX_SHAPES = 200;
const shapesByDb = new WeakMap<object, Map<string, RowStatement>>();

function rowStatement(db: Kysely<any>, columns: string[], build: BuildWrite, shape: string | undefined): RowStatement {
  const key = shape === undefined ? undefined : `${shape}\u0000${columns.join('\u0000')}`;
  let shapes = shapesByDb.get(db);
  const known = key === undefined ? undefined : shapes?.get(key);
  if (known) return known;
  const compiled = build([Object.fromEntries(columns.map((c) => [c, MARKER + c]))]).compile();
  const slots = compiled.parameters.map((p) => (typeof p === 'string' && p.startsWith(MARKER) ? p.slice(MARKER.length) : null));
  const made = { compiled, slots };
  if (key !== undefined) {
    if (!shapes) shapesByDb.set(db, (shapes = new Map()));
    if (shapes.size >= MAX_SHAPES) shapes.clear();
    shapes.set(key, made);
  }
  return made;
}

/**
 * Compiles `build` for a single row once and runs that statement for every row on the connection
 * the caller holds (its transaction, if any), returning what the statement RETURNs, row after row.
 * The statement text is the same for every row, so the dialect's statement cache prepares it once:
 * no multi-thousand-parameter statement is compiled and prepared per call. Where the rows' values
 * go is found by compiling with a marker per column; other parameters (constants in the builder)
 * stay as compiled. Rows must all have the keys of the first row (`undefined` is stored as NULL).
 *
 * `shape` names the statement `build` makes, so it is compiled once per column list and not on
 * every call: building and compiling a Kysely upsert cost more than running it for the one row of a
 * `POST /tests` (issue 30). Only for a `build` that captures nothing varying between calls (its
 * constants are kept with the compiled statement).
 */
export async function runPerRow(db: Kysely<any>, rows: readonly Record<string, unknown>[], build: BuildWrite, runSync?: RunStatement, shape?: string): Promise<unknown[]> {
  if (rows.length === 0) return [];
  const columns = Object.keys(rows[0]);
  const { compiled, slots } = rowStatement(db, columns, build, shape);
  const constants = compiled.parameters;
  const n = slots.length;
  const out: unknown[] = [];
  await db.getExecutor().provideConnection(async (conn) => {
    const run = runSync?.(compiled.sql);
    // A synchronous run binds the values before it returns, so one array serves every row: an
    // array per row was a large share of ingestion's garbage (three statements per stored test).
    const reused: unknown[] | undefined = run ? new Array(n) : undefined;
    for (const row of rows) {
      const parameters: unknown[] = reused ?? new Array(n);
      for (let i = 0; i < n; i++) {
        const col = slots[i];
        parameters[i] = col === null ? constants[i] : (row[col] ?? null);
      }
      if (run) {
        for (const r of run(parameters)) out.push(r);
        continue;
      }
      // A plain object rather than CompiledQuery.raw(): no frozen copy and query node per row.
      const result = await conn.executeQuery({ sql: compiled.sql, parameters, query: compiled.query, queryId: compiled.queryId });
      for (const r of result.rows) out.push(r);
    }
  });
  return out;
}
