import { describe, expect, it } from 'vitest';
import { newId } from './ids.js';

describe('newId', () => {
  it('mints RFC 9562 UUIDv7 values', () => {
    expect(newId()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('carries the creation time in its first 48 bits', () => {
    const at = Date.parse('2026-11-22T05:00:00Z');
    const id = newId(at);
    expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBeGreaterThanOrEqual(at);
  });

  it('stays unique and time-ordered across many ids minted in the same millisecond', () => {
    const ids = Array.from({ length: 20_000 }, () => newId(Date.parse('2030-01-01T00:00:00Z')));
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });
});
