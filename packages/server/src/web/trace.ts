import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, extname, join, normalize, sep } from 'node:path';
import type { Hono } from 'hono';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.ttf': 'font/ttf',
  '.webmanifest': 'application/manifest+json',
  '.png': 'image/png',
  '.json': 'application/json',
};

/** The static Playwright trace viewer shipped in playwright-core (same version as the reporters' Playwright or newer). */
export function traceViewerDir(): string {
  const pkg = createRequire(import.meta.url).resolve('playwright-core/package.json');
  return join(dirname(pkg), 'lib', 'vite', 'traceViewer');
}

/** Hashes of the inline scripts of the viewer's HTML, so its CSP can allow exactly those and no others. */
function inlineScriptHashes(html: string): string[] {
  return [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => `'sha256-${createHash('sha256').update(m[1]).digest('base64')}'`);
}

/**
 * Serves the viewer at `/trace/`. Its own CSP: the viewer's scripts and its service worker from
 * here, traces fetched from here or {storage_url}, snapshots framed from itself (and one `data:`
 * frame the viewer creates); inline styles are allowed because the viewer and the recorded page
 * snapshots use them.
 */
export function mountTraceViewer(app: Hono, storageOrigin: () => string) {
  const dir = traceViewerDir();
  const cache = new Map<string, { body: Uint8Array<ArrayBuffer>; csp: string }>();
  const cspFor = (hashes: string[]) => {
    const storage = storageOrigin();
    return [
      "default-src 'self'",
      `script-src 'self' ${hashes.join(' ')}`.trim(),
      "style-src 'self' 'unsafe-inline'",
      `img-src 'self' data: blob:${storage}`,
      `media-src 'self' data: blob:${storage}`,
      "font-src 'self' data:",
      `connect-src 'self'${storage}`,
      "frame-src 'self' data:",
      "worker-src 'self'",
      "frame-ancestors 'self'",
      "base-uri 'self'",
    ].join('; ');
  };

  app.get('/trace', (c) => c.redirect('/trace/index.html', 301));
  app.get('/trace/*', async (c) => {
    let rel = c.req.path.slice('/trace/'.length) || 'index.html';
    rel = normalize(rel);
    if (rel.startsWith('..') || rel.includes(`${sep}..`) || rel.startsWith(sep)) return c.notFound();
    let entry = cache.get(rel);
    if (!entry) {
      let body: Buffer;
      try {
        body = await readFile(join(dir, rel));
      } catch {
        return c.notFound();
      }
      const hashes = rel.endsWith('.html') ? inlineScriptHashes(body.toString('utf8')) : [];
      entry = { body: new Uint8Array(body) as Uint8Array<ArrayBuffer>, csp: cspFor(hashes) };
      cache.set(rel, entry);
    }
    // Hashed asset names never change; the HTML and the service worker must be revalidated.
    const immutable = /\.[A-Za-z0-9_-]{8}\.(js|css|ttf)$/.test(rel) || rel.startsWith('assets/');
    return c.body(entry.body, 200, {
      'Content-Type': TYPES[extname(rel)] ?? 'application/octet-stream',
      'Content-Security-Policy': entry.csp,
      'Cache-Control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
      'Referrer-Policy': 'no-referrer',
    });
  });
}
