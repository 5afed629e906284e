import type { Compilable, CompiledQuery, QueryResult } from 'kysely';
import type { Db } from './database.js';

/** Stands for a named value while the query is compiled; never reaches the database. */
const MARKER = '\u0000testreport-value\u0000';

interface Compiled<R> {
  compiled: CompiledQuery<R>;
  /** For each parameter, the name of the value that goes there, or null for a constant of the builder. */
  slots: (string | null)[];
}

/**
 * A query of a fixed shape (the same SQL whatever the values: no `in` lists, no optional clauses),
 * built and compiled once per database and then only bound to new values. Kysely builds a query's
 * tree and compiles it anew on every execution; for the few lookups every ingestion request makes
 * (the API key, the Idempotency-Key, the project) that was a large part of a one-test `POST /tests`
 * (issue 30). `build` receives stand-ins for the named values and must use each only as a value
 * (a parameter), and capture nothing else that varies between calls.
 */
export function prepared<N extends string, R>(build: (db: Db, values: Record<N, any>) => Compilable<R>) {
  const byDb = new WeakMap<Db, Compiled<R>>();
  const stand = new Proxy({} as Record<N, string>, { get: (_t, name) => MARKER + String(name) });
  /** The statement bound to `values`. */
  const bound = (db: Db, values: Record<N, unknown>): CompiledQuery<R> => {
    let c = byDb.get(db);
    if (!c) {
      const compiled = build(db, stand).compile();
      const slots = compiled.parameters.map((p) => (typeof p === 'string' && p.startsWith(MARKER) ? p.slice(MARKER.length) : null));
      byDb.set(db, (c = { compiled, slots }));
    }
    const { compiled, slots } = c;
    const parameters = slots.map((name, i) => (name === null ? compiled.parameters[i] : values[name as N]));
    return { sql: compiled.sql, parameters, query: compiled.query, queryId: compiled.queryId };
  };
  return Object.assign((db: Db, values: Record<N, unknown>): Promise<QueryResult<R>> => db.executeQuery<R>(bound(db, values)), { bound });
}
