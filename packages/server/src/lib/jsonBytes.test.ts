import { describe, expect, it } from 'vitest';
import { encodeResponse } from './jsonBytes.js';

const text = (encoded: string | Uint8Array) => (typeof encoded === 'string' ? encoded : Buffer.from(encoded).toString('utf8'));

describe('encodeResponse', () => {
  it('writes a payload with a long array as UTF-8 bytes of exactly the JSON that JSON.stringify writes', () => {
    const items = Array.from({ length: 600 }, (_, i) => ({
      id: `t-${i}`, title: i % 7 ? `test ${i}` : 'naïve — 日本語 😀 "quoted" \\ \n', lone: i === 3 ? 'a\uD800b' : undefined, at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)), n: i / 3,
    }));
    const payloads: unknown[] = [
      { data: items, nextCursor: null, skipped: undefined, fn: () => 1 },
      { meta: { total: 600 }, data: [...items, undefined, null, () => 1] },
      items,
      { data: Array.from({ length: 300 }, () => 'x'.repeat(2000)) },
    ];
    for (const payload of payloads) {
      const encoded = encodeResponse(payload);
      expect(encoded).toBeInstanceOf(Uint8Array);
      expect(text(encoded)).toBe(JSON.stringify(payload));
    }
  });

  it('keeps short payloads as text', () => {
    const payload = { data: [{ id: 1 }], total: 1 };
    expect(encodeResponse(payload)).toBe(JSON.stringify(payload));
    expect(encodeResponse('x')).toBe('"x"');
  });

  it('writes an element nested too deep for JSON.stringify, as the text path does', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 20_000; i++) deep = { child: deep };
    const encoded = text(encodeResponse({ data: Array.from({ length: 256 }, (_, i) => (i === 10 ? deep : i)) }));
    expect(encoded.startsWith('{"data":[0,1,2,3,4,5,6,7,8,9,{"child":{"child":')).toBe(true);
    expect(encoded.endsWith(',254,255]}')).toBe(true);
  });
});
