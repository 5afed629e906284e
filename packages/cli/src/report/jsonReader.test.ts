import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { JsonReader, JsonSyntaxError } from './jsonReader.js';

const dir = mkdtempSync(join(tmpdir(), 'cli-jsonreader-'));
const fileOf = (name: string, text: string) => {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
};

/** Reads a top-level array element by element, as the Playwright walker reads specs. */
async function elements(file: string, chunkBytes: number): Promise<unknown[]> {
  const r = new JsonReader(file, chunkBytes);
  const out: unknown[] = [];
  try {
    if (await r.open(0x5b, 0x5d)) {
      do out.push(await r.value());
      while (await r.another(0x5d));
    }
    if ((await r.peek()) >= 0) throw new JsonSyntaxError('trailing data');
  } finally {
    r.close();
  }
  return out;
}

describe('JsonReader', () => {
  // Escaped quotes and backslashes, brackets inside strings, multi-byte characters and numbers at
  // the end of values: the places where a chunk boundary can fall inside a token.
  const values = [
    { a: 'say "hi" \\', b: ['[', ']', '{', '}'], c: 'é ü 日本 🎭', d: -1.5e3, e: null, f: true },
    'a "quoted" \\\\ string \\"',
    12345,
    false,
    [],
    {},
    [[[{ deep: ['x\\', 'y\\"'] }]]],
  ];
  const text = ' [ ' + values.map((v) => JSON.stringify(v)).join(' ,\n') + ' ] \n';

  it('reads every value whole whatever the chunk size', async () => {
    const file = fileOf('values.json', text);
    for (const chunk of [1, 2, 3, 5, 7, 64, 1024 * 1024]) expect(await elements(file, chunk)).toEqual(values);
  });

  it('reads a number that ends the file', async () => {
    const r = new JsonReader(fileOf('number.json', '42'), 1);
    expect(await r.value()).toBe(42);
    r.close();
  });

  it('says where a document is cut short or broken', async () => {
    for (const bad of [text.slice(0, text.length / 2), '[{"a": 1,}]', '[1 2]', '[tru]', '["open']) {
      const file = fileOf('bad.json', bad);
      for (const chunk of [1, 4, 1024]) await expect(elements(file, chunk)).rejects.toThrow(/at byte \d+/);
    }
  });
});
