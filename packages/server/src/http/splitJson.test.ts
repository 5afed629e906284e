import { describe, expect, it } from 'vitest';
import { parseArrayBody } from './splitJson.js';

const split = (text: string) => parseArrayBody(Buffer.from(text))?.value;

/** A result as a reporter sends it, with nested attempts and steps (their own `},{`). */
const result = (i: number, over: Record<string, unknown> = {}) => ({
  runId: 'run-1',
  title: `test ${i}`,
  status: i % 3 ? 'passed' : 'failed',
  attempts: [{ retry: 0, status: 'failed', errors: [{ message: 'boom' }, { message: 'again' }] }, { retry: 1, status: 'passed', errors: [] }],
  steps: [{ title: 'a', steps: [{ title: 'a.1' }, { title: 'a.2' }] }, { title: 'b' }],
  ...over,
});

describe('parseArrayBody: a batch parsed element by element', () => {
  it('gives what JSON.parse gives, with nested arrays of objects in every element', () => {
    const body = { tests: Array.from({ length: 50 }, (_, i) => result(i)) };
    expect(split(JSON.stringify(body))).toEqual(body);
  });

  it('is not fooled by the separator inside strings', () => {
    const tricky = [
      result(0, { stdout: 'log: },{"runId":"x"} and more },{"runId":' }),
      result(1, { title: '\\"},{"runId":"', nested: [{ title: 'inner' }, { title: 'inner 2' }] }),
      result(2, { stderr: 'ends with a backslash \\', message: 'quote " inside' }),
      { runId: 'only key' },
      result(4, { unicode: 'naïve — 日本語 😀', escapes: '\n\t\u0001\u2028' }),
    ];
    const body = { tests: tricky };
    expect(split(JSON.stringify(body))).toEqual(body);
  });

  it('gives the same value for randomly built bodies, and takes the fast path for most of them', () => {
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const pieces = ['},{', '"runId":', '{"runId":', '\\', '"', ']', '[', 'a', 'é', '😀', ' ', '\n', '},{"runId":"r"}'];
    const text = () => Array.from({ length: rand(6) }, () => pieces[rand(pieces.length)]).join('');
    const value = (depth: number): unknown => {
      switch (depth > 2 ? rand(3) : rand(6)) {
        case 0: return text();
        case 1: return rand(1000) - 500;
        case 2: return rand(2) === 0 ? null : rand(2) === 0;
        case 3: return Array.from({ length: rand(4) }, () => value(depth + 1));
        default: return Object.fromEntries(Array.from({ length: rand(4) }, () => [rand(8) === 0 ? 'runId' : text(), value(depth + 1)]));
      }
    };
    let fast = 0;
    for (let n = 0; n < 300; n++) {
      const body = { tests: Array.from({ length: 1 + rand(40) }, () => ({ runId: text(), a: value(0), b: value(0) })) };
      const parsed = parseArrayBody(Buffer.from(JSON.stringify(body)));
      if (parsed) {
        fast++;
        expect(parsed.value).toEqual(JSON.parse(JSON.stringify(body)));
      }
    }
    expect(fast).toBeGreaterThan(240);
  });

  it('leaves every other text to the whole-body parse: other shapes, whitespace between elements, errors', () => {
    const valid = JSON.stringify({ tests: [result(1), result(2)] });
    expect(split(valid)).toBeDefined();
    for (const other of [
      JSON.stringify({ tests: [result(1), result(2)] }, null, 2),
      JSON.stringify([result(1)]),
      JSON.stringify({ tests: [result(1)], more: 1 }),
      JSON.stringify({ tests: [1, 2, 3] }),
      JSON.stringify({ tests: [] }),
      '{"__proto__":[{"a":1},{"a":2}]}',
      '{"te\u0001sts":[{"a":1}]}',
      valid.slice(0, -5),
      `${valid.slice(0, -2)},]}`,
      `${valid}x`,
      valid.replace('"passed"', '"passed'),
      valid.replace('},{"runId"', '} ,{"runId"'),
    ]) {
      expect(split(other), other.slice(0, 60)).toBeUndefined();
    }
  });

  it('accepts whitespace around the body, and says whether a \\u escape may hide a lone surrogate', () => {
    const body = { tests: [result(1), { runId: 'x', title: 'a\uD800b' }] };
    const parsed = parseArrayBody(Buffer.from(`\n ${JSON.stringify(body)} \r\n`));
    expect(parsed?.value).toEqual(JSON.parse(JSON.stringify(body)));
    expect(parsed?.escapes).toBe(true);
    expect(parseArrayBody(Buffer.from(JSON.stringify({ tests: [result(1)] })))?.escapes).toBe(false);
  });

  it('leaves elements whose nested objects open with the same key to the whole-body parse (a cut there does not parse)', () => {
    const titled = (i: number) => ({ title: `test ${i}`, steps: [{ title: 'Before Hooks', steps: [{ title: 'fixture: page' }, { title: 'fixture: context' }] }, { title: 'click' }] });
    expect(split(JSON.stringify({ tests: Array.from({ length: 5 }, (_, i) => titled(i)) }))).toBeUndefined();
    // As the reporter sends them: the run's ids first.
    const body = { tests: Array.from({ length: 5 }, (_, i) => ({ runId: 'r', projectId: 'p', ...titled(i) })) };
    expect(split(JSON.stringify(body))).toEqual(body);
  });
});
