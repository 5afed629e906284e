import { describe, expect, it } from 'vitest';
import { LIMITS } from './common.js';
import { appendCapped, cleanError, cleanOutput, stripAnsi } from './text.js';

describe('text as reporters send it', () => {
  it('strips colours, cursor moves and OSC hyperlinks', () => {
    expect(stripAnsi('\u001b[31mExpected\u001b[39m: \u001b[2m"a"\u001b[22m')).toBe('Expected: "a"');
    expect(stripAnsi('\u001b[?25lhidden\u001b[?25h')).toBe('hidden');
    expect(stripAnsi('see \u001b]8;;https://example.com/a?b=1\u0007link\u001b]8;;\u0007 here')).toBe('see link here');
    expect(stripAnsi('plain [31m text')).toBe('plain [31m text');
  });

  it('caps output and errors at the contract’s limits', () => {
    expect(cleanOutput('x'.repeat(LIMITS.outputBytes + 10))).toHaveLength(LIMITS.outputBytes);
    expect(cleanError('\u001b[31m' + 'e'.repeat(LIMITS.errorTextBytes + 10))).toHaveLength(LIMITS.errorTextBytes);
    let out = '';
    for (let i = 0; i < 3; i++) out = appendCapped(out, 'abcd', 10);
    expect(out).toBe('abcdabcdab');
  });
});
