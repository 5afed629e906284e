import { describe, expect, it } from 'vitest';
import { safeNext } from './session.js';

describe('safeNext', () => {
  it.each([
    ['/runs/abc?status=failed', '/runs/abc?status=failed'],
    ['/projects/p/flaky?minScore=0.2#top', '/projects/p/flaky?minScore=0.2#top'],
    ['/', '/'],
    // Non-ASCII comes back percent-encoded: a Location header can only hold bytes.
    ['/runs?q=café €', '/runs?q=caf%C3%A9%20%E2%82%AC'],
    ['/a/../b', '/b'],
  ])('keeps the path %j on this server as %j', (next, expected) => {
    expect(safeNext(next)).toBe(expected);
  });

  it.each([
    // Browsers drop tabs and line breaks and read "\" as "/": each of these became //evil.example.
    ['/\t/evil.example'],
    ['/\t\\evil.example'],
    ['/\n/evil.example'],
    ['/\r/evil.example'],
    ['/\\evil.example'],
    ['\\/evil.example'],
    ['//evil.example'],
    ['///evil.example'],
    ['https://evil.example/'],
    ['javascript:alert(1)'],
    ['evil.example'],
    // Line breaks would also split the Location header (a 500 before).
    ['/\n/x'],
    ['/x\r\nSet-Cookie: a=b'],
    ['/\u0000x'],
    ['/\u0085x'],
    [''],
    [null],
    [undefined],
  ])('sends %j to / instead', (next) => {
    expect(safeNext(next)).toBe('/');
  });
});
