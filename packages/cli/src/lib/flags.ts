import { Option } from 'commander';
import { UsageError } from './errors.js';

export function intFlag(name: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`${name} must be a whole number from ${min} to ${max}, got "${value}"`);
  return n;
}

export function numberFlag(name: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < min || n > max) throw new UsageError(`${name} must be a number from ${min} to ${max}, got "${value}"`);
  return n;
}

export function boolFlag(name: string, value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  const v = value.toLowerCase();
  if (['on', 'true', 'yes', '1'].includes(v)) return true;
  if (['off', 'false', 'no', '0'].includes(v)) return false;
  throw new UsageError(`${name} must be on or off, got "${value}"`);
}

export const pageOptions = () => [
  new Option('--limit <n>', 'rows per page (1-500)').default('50'),
  new Option('--offset <n>', 'rows to skip').default('0'),
];

export function page(flags: { limit?: string; offset?: string }) {
  return { limit: intFlag('--limit', flags.limit, 1, 500) ?? 50, offset: intFlag('--offset', flags.offset, 0, Number.MAX_SAFE_INTEGER) ?? 0 };
}

/** How to get the next page, from a list response (which echoes the limit and offset used). */
export function pageNote(res: { data: unknown[]; total: number; offset: number }): string | undefined {
  const { total, offset } = res;
  const count = res.data.length;
  if (offset + count >= total) return undefined;
  return `showing ${offset + 1}-${offset + count} of ${total}; next page: --offset ${offset + count}`;
}

export const ms = (v: number | null | undefined) => (v === null || v === undefined ? null : v >= 1000 ? `${(v / 1000).toFixed(1)}s` : `${Math.round(v)}ms`);
export const when = (iso: string | null | undefined) => (iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : null);
