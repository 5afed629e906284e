import { beforeEach, describe, expect, it, vi } from 'vitest';

// newId keeps the last millisecond and counter in module state: every test gets a fresh module so
// that what one test minted cannot shift the next one's timestamps.
let newId: (now?: number) => string;
beforeEach(async () => {
  vi.resetModules();
  ({ newId } = await import('./ids.js'));
});

/** The RFC 9562 fields of a UUIDv7 string. */
function fields(id: string) {
  expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  const bits = BigInt(`0x${id.replace(/-/g, '')}`);
  return {
    ms: Number(bits >> 80n),
    version: Number((bits >> 76n) & 0xfn),
    counter: Number((bits >> 64n) & 0xfffn),
    variant: Number((bits >> 62n) & 0b11n),
    random: bits & ((1n << 62n) - 1n),
  };
}

const T = Date.parse('2026-11-22T05:00:00.123Z');

describe('newId', () => {
  it('is a UUIDv7: version 7, variant 0b10, the injected clock as the 48-bit millisecond timestamp', () => {
    const f = fields(newId(T));
    expect(f).toMatchObject({ ms: T, version: 7, variant: 0b10, counter: 0 });
    // A timestamp past 2^32 ms checks the high bytes too.
    expect(fields(newId(2 ** 47 + 5)).ms).toBe(2 ** 47 + 5);
  });

  it('uses the wall clock when none is injected', () => {
    const before = Date.now();
    const { ms } = fields(newId());
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(Date.now());
  });

  it('follows the clock from one millisecond to the next and restarts the counter', () => {
    const ids = [T, T + 1, T + 1000].map((t) => fields(newId(t)));
    expect(ids.map((f) => [f.ms, f.counter])).toEqual([
      [T, 0],
      [T + 1, 0],
      [T + 1000, 0],
    ]);
  });

  it('counts up within one millisecond, so ids minted in the same ms sort in minting order', () => {
    const ids = Array.from({ length: 100 }, () => newId(T));
    expect(ids.map((id) => fields(id).counter)).toEqual(ids.map((_, i) => i));
    expect(ids.every((id) => fields(id).ms === T)).toBe(true);
    expect([...ids].sort()).toEqual(ids);
  });

  it('borrows the next millisecond when the 12-bit counter runs out, staying unique and ordered', () => {
    const ids = Array.from({ length: 4096 + 10 }, () => newId(T));
    expect(fields(ids[4095])).toMatchObject({ ms: T, counter: 0xfff });
    expect(fields(ids[4096])).toMatchObject({ ms: T + 1, counter: 0 });
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });

  it('never goes backwards when the clock does', () => {
    const first = newId(T);
    const after = newId(T - 5_000);
    expect(fields(after)).toMatchObject({ ms: T, counter: 1 });
    expect(after > first).toBe(true);
  });

  it('fills the remaining 62 bits with fresh randomness', () => {
    const randoms = new Set(Array.from({ length: 1000 }, (_, i) => fields(newId(T + i)).random));
    expect(randoms.size).toBe(1000);
  });
});
