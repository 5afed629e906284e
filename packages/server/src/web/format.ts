/** Display helpers shared by the pages. */

export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '–';
  // 999.6 ms is "1.0 s", not "1000 ms".
  if (ms < 999.5) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(s < 10 ? 1 : 0)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${Math.round(s % 60)} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** UTC, minute precision: the same text for every viewer and in screenshots. */
export const when = (iso: string | null | undefined) => (iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : '–');

export const shortSha = (sha: string | null | undefined) => (sha ? sha.slice(0, 7) : '');

export const firstLine = (text: string | null | undefined, max = 120) => {
  const line = (text ?? '').split('\n')[0];
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

export const percent = (n: number) => `${n.toFixed(n % 1 === 0 ? 0 : 1)}%`;

const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]/g;
export const stripAnsi = (s: string | null | undefined) => (s ?? '').replace(ANSI, '');

/** Builds a link to the current page with some query parameters changed (empty values dropped). */
export function withQuery(path: string, current: Record<string, string | undefined>, changes: Record<string, string | number | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries({ ...current, ...changes })) if (v !== undefined && v !== '' && !(k === 'page' && String(v) === '1')) q.set(k, String(v));
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

/** A positive page number from the query (1 for anything else). */
export const pageOf = (raw: string | undefined) => {
  const n = Number(raw);
  return Number.isInteger(n) && n >= 1 && n <= 1_000_000 ? n : 1;
};

/** Only http(s) links from reported metadata become clickable (no `javascript:` from a CI variable). */
export const safeHref = (url: string | null | undefined) => (url && /^https?:\/\//i.test(url) ? url : undefined);
