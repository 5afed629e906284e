import { finished } from 'node:stream/promises';
import copyStreams from 'pg-copy-streams';
import { sql, type Kysely } from 'kysely';

/** Text handed to the COPY stream at a time: one CopyData message each, whatever the row count. */
const CHUNK_CHARS = 256 * 1024;

// COPY's text format: a tab between columns, a newline after each row, `\N` for NULL, and the
// backslash escapes below for those characters inside a value (all others, unicode included, go
// as they are; a NUL cannot be stored in a text column whichever way it is sent).
const SPECIAL = /[\\\n\r\t]/;
const SPECIALS = /[\\\n\r\t]/g;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };
const escape = (c: string) => ESCAPES[c]!;

/** One value as COPY's text format writes it (the values repositories store: see `db/values.ts`). */
export function copyField(value: unknown, column: string): string {
  if (value === null || value === undefined) return '\\N';
  switch (typeof value) {
    case 'string':
      return SPECIAL.test(value) ? value.replace(SPECIALS, escape) : value;
    case 'number':
    case 'bigint':
    case 'boolean':
      // What `pg` would have sent as a bound parameter (a boolean into an integer column fails either way).
      return String(value);
    default:
      // bytea's hex input (\x…), its backslash escaped for COPY's text format.
      if (Buffer.isBuffer(value)) return `\\\\x${value.toString('hex')}`;
      throw new TypeError(`insertMany: column ${column} holds a ${typeof value}, not a stored representation`);
  }
}

/**
 * Inserts rows (all with the keys of the first) by `COPY table (columns) FROM STDIN` on the
 * connection the caller holds — its transaction, if any — through `pg-copy-streams`. Against the
 * `unnest($1::type[], …)` insert it replaces, nothing is turned into array literals (`pg` escaped
 * every element with a regular expression, the JSON columns full of quotes) and PostgreSQL parses
 * no arrays: the rows go as one stream of text in COPY's format.
 *
 * The COPY query object is handed to the connection as the statement: Kysely's PostgreSQL
 * connection passes it to `pg`'s `client.query`, which runs any object with `submit()` (a
 * "submittable", the way pg-copy-streams is meant to be used) in its turn on that client.
 */
export async function copyRows(db: Kysely<any>, table: string, rows: readonly Record<string, unknown>[]): Promise<void> {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]);
  const statement = sql`copy ${sql.table(table)} (${sql.join(columns.map((c) => sql.ref(c)))}) from stdin`.compile(db).sql;
  // The text is made before the COPY starts: a value that cannot be written then fails the insert
  // before the connection enters COPY mode, rather than leave it there.
  const chunks: string[] = [];
  let text = '';
  for (const row of rows) {
    let line = '';
    for (let i = 0; i < columns.length; i++) {
      const c = columns[i]!;
      line += (i === 0 ? '' : '\t') + copyField(row[c], c);
    }
    text += line + '\n';
    if (text.length >= CHUNK_CHARS) {
      chunks.push(text);
      text = '';
    }
  }
  if (text) chunks.push(text);
  await db.getExecutor().provideConnection(async (conn) => {
    const stream = copyStreams.from(statement);
    const done = finished(stream);
    // Awaited below; a failure before then must not count as unhandled.
    done.catch(() => {});
    await conn.executeQuery({ sql: stream as unknown as string, parameters: [], query: undefined as never, queryId: undefined as never });
    for (const chunk of chunks) stream.write(chunk);
    stream.end();
    await done;
  });
}
