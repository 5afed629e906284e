import { createHash } from 'node:crypto';
import type { Hono } from 'hono';
import { ACCOUNT_FLOWS } from './assets/accountFlows.js';
import { ISLANDS } from './assets/islands.js';
import { STYLES } from './assets/styles.js';

const hashOf = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 10);

/** Content-hashed names, so the files can be cached for a year and a new build is fetched at once. */
export const ASSET_URLS = {
  css: `/assets/app.${hashOf(STYLES)}.css`,
  js: `/assets/app.${hashOf(ISLANDS)}.js`,
  account: `/assets/account.${hashOf(ACCOUNT_FLOWS)}.js`,
};

export function mountAssets(app: Hono) {
  const serve = (body: string, type: string) => () =>
    new Response(body, { headers: { 'Content-Type': type, 'Cache-Control': 'public, max-age=31536000, immutable' } });
  app.get(ASSET_URLS.css, serve(STYLES, 'text/css; charset=utf-8'));
  app.get(ASSET_URLS.js, serve(ISLANDS, 'text/javascript; charset=utf-8'));
  app.get(ASSET_URLS.account, serve(ACCOUNT_FLOWS, 'text/javascript; charset=utf-8'));
}
