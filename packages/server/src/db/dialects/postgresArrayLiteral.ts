/**
 * A one-dimensional PostgreSQL array literal (`{"a","b",NULL}`) of stored values, for a
 * `cast($1 as type[])` parameter. `pg` builds the same text when handed a JS array, but runs two
 * regular-expression replacements on every element: for the case upsert, 10 columns of 500 rows
 * per batch, that was about 4 µs of the server's CPU per stored test (docs/benchmarks.md).
 * Strings are always quoted (an empty string, `NULL`, braces, commas and spaces stay text); only
 * `"` and `\` need escaping inside the quotes.
 */
const NEEDS_ESCAPE = /["\\]/;
const ESCAPED = /["\\]/g;

export function arrayLiteral(values: readonly unknown[]): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    if (i > 0) out += ',';
    const v = values[i];
    if (v === null || v === undefined) out += 'NULL';
    else if (typeof v === 'string') out += NEEDS_ESCAPE.test(v) ? `"${v.replace(ESCAPED, '\\$&')}"` : `"${v}"`;
    else if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') out += `"${String(v)}"`;
    // bytea's hex input, its backslash escaped for the array's syntax (as `pg` writes it).
    else if (v instanceof Uint8Array) out += `\\\\x${Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex')}`;
    else throw new TypeError(`array literal: a ${typeof v} is not a stored representation`);
  }
  return `${out}}`;
}
