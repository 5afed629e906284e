import { describe, expect, it } from 'vitest';
import { stringifyIteratively, stringifyResponse } from './deepJson.js';

describe('stringifyIteratively', () => {
  it('writes what JSON.stringify writes for plain data', () => {
    const samples = [null, 0, -1.5, 'a"b\n😀', true, [], {}, [1, [2, [3]], { a: undefined, b: null }], { x: { y: [{ z: 'w' }] }, e: [], o: {} }];
    for (const s of samples) expect(stringifyIteratively(s)).toBe(JSON.stringify(s));
  });

  it('serialises a chain 20,000 levels deep that JSON.stringify cannot', () => {
    let node: { children: unknown[] } = { children: [] };
    for (let i = 0; i < 20_000; i++) node = { children: [node] };
    expect(() => JSON.stringify(node)).toThrow(RangeError);
    const text = stringifyResponse(node);
    expect(text.startsWith('{"children":[{"children":[')).toBe(true);
    expect(text.length).toBe('{"children":['.length * 20_001 + ']}'.length * 20_001);
  });
});
