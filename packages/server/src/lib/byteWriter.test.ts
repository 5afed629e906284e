import { describe, expect, it } from 'vitest';
import { ByteWriter } from './byteWriter.js';

describe('ByteWriter', () => {
  it('writes text as UTF-8, bytes and hexadecimal exactly as Buffer does, growing past the buffer it was given', () => {
    const out = new ByteWriter(Buffer.allocUnsafeSlow(8));
    const expected: Buffer[] = [];
    const texts = ['', 'plain ascii id 01a22098-86a3-7000', 'ü', 'abc é', 'emoji 🧪 at the end', 'lone \ud800 surrogate', 'x'.repeat(64), `${'y'.repeat(63)}ü`, 'z'.repeat(5000), `${'€'.repeat(3000)}`];
    for (const [i, text] of texts.entries()) {
      out.write(text);
      expected.push(Buffer.from(text, 'utf8'));
      out.byte(0x09);
      expected.push(Buffer.from([0x09]));
      const bytes = Buffer.from(Array.from({ length: i * 7 }, (_, j) => (j * 37 + i) & 255));
      out.hex(bytes);
      expected.push(Buffer.from(bytes.toString('hex'), 'latin1'));
    }
    const want = Buffer.concat(expected);
    expect(out.length).toBe(want.length);
    expect(Buffer.from(out.bytes()).equals(want)).toBe(true);
    expect(out.buffer().length).toBeGreaterThanOrEqual(want.length);
  });
});
