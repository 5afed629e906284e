import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { arrayLiteral } from './postgresArrayLiteral.js';

// `pg` builds this literal itself when handed a JS array: ours must be the same text.
// (`prepareValue` of an array is `pg`'s `arrayString`.)
const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils.js') as { prepareValue: (values: unknown[]) => string };
const arrayString = (values: unknown[]) => prepareValue(values);

describe('arrayLiteral', () => {
  it('writes what pg writes for the values repositories store', () => {
    const values = [
      'plain', '', 'NULL', 'with "quotes"', 'back\\slash', '{braces},commas', ' spaced ', 'tab\tnew\nline', 'ünïcödé 🎭',
      null, undefined, 0, -12, 3.25, 1e21, 12n, true, Buffer.from([0, 1, 254, 255]), Buffer.alloc(0),
    ];
    expect(arrayLiteral(values)).toBe(arrayString(values));
    expect(arrayLiteral([])).toBe(arrayString([]));
  });

  it('refuses what is not a stored representation instead of guessing', () => {
    expect(() => arrayLiteral([{ a: 1 }])).toThrow(TypeError);
    expect(() => arrayLiteral([new Date(0)])).toThrow(TypeError);
  });
});
