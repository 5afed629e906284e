import type { Insertable, InsertQueryBuilder, InsertResult, Kysely } from 'kysely';
import { dialectOf, type Db } from './database.js';
import type { Database as Schema } from './schema.js';
import type { BuildWrite, FinishInsert, RowsWrite } from './perRow.js';
import type { TogetherWrite } from './dialect.js';

/**
 * Inserts many rows of one table (all with the same columns) in the fewest statements the dialect
 * allows; works on a transaction too. For bulk writes such as a batch of results.
 */
export function insertMany<T extends keyof Schema & string>(db: Db, table: T, rows: readonly Insertable<Schema[T]>[]): Promise<void> {
  return dialectOf(db).insertMany(db, table, rows as readonly Record<string, unknown>[]);
}

/**
 * Runs the multi-row write `build` makes (e.g. an upsert with RETURNING) over many rows, in the
 * way the dialect does best (see `DialectSupport.writeMany`); returns the RETURNed rows. `build`
 * gets the rows as they are (the same keys in every row) and must not look at their values.
 * `shape`, a name unique to the call site, lets SQLite keep the statement compiled between calls;
 * give it only when `build` captures nothing that varies between calls.
 */
export async function writeMany<R>(db: Db, rows: readonly Record<string, unknown>[], build: BuildWrite, rowsPerStatement: number, shape?: string): Promise<R[]> {
  return (await dialectOf(db).writeMany(db, rows, build, rowsPerStatement, shape)) as R[];
}

/** Independent multi-row writes in as few statements as the dialect can (`DialectSupport.writeTogether`). */
export function writeTogether(db: Db, writes: readonly TogetherWrite[]): Promise<void> {
  return dialectOf(db).writeTogether(db, writes);
}

/**
 * An upsert of many rows of one table (all with the same keys): `finish` completes the INSERT it is
 * given (ON CONFLICT, RETURNING) without looking at the rows; `types` names each key's PostgreSQL
 * type, in the rows' key order (see `DialectSupport.upsertMany`). `shape`, unique to the call site,
 * keeps SQLite's one-row statement compiled. Returns the RETURNed rows.
 */
export async function upsertMany<R, T extends keyof Schema & string = keyof Schema & string>(
  db: Db,
  table: T,
  rows: readonly Insertable<Schema[T]>[],
  types: Readonly<Record<string, string>>,
  finish: (insert: InsertQueryBuilder<Schema, T, InsertResult>) => RowsWrite,
  shape: string,
): Promise<R[]> {
  return (await dialectOf(db).upsertMany(db, table, rows as readonly Record<string, unknown>[], types, finish as FinishInsert, shape)) as R[];
}

/** Readies the current transaction for statements that group millions of rows (DialectSupport.forBulkWork). */
export const forBulkWork = (db: Kysely<any>): Promise<void> => dialectOf(db).forBulkWork(db);
