// A small API helper over fetch (keep-alive by default in Node 20). Every POST carries an
// Idempotency-Key, as the SDK, reporter and CLI always send one, so the server does the same work.
import { randomUUID } from 'node:crypto';

export function api(baseUrl, apiKey) {
  const base = `${baseUrl.replace(/\/$/, '')}/api/v1`;
  return async function call(method, path, body) {
    const res = await fetch(base + path, {
      method,
      headers: { 'x-api-key': apiKey, ...(body ? { 'content-type': 'application/json' } : {}), ...(method === 'POST' ? { 'idempotency-key': randomUUID() } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${text.slice(0, 300)}`);
    return text ? JSON.parse(text) : null;
  };
}

/** Runs fn(i) for i in [0, n) with `concurrency` calls in flight. */
export async function pool(n, concurrency, fn) {
  let next = 0;
  const worker = async () => {
    while (next < n) await fn(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, worker));
}

export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx];
}
