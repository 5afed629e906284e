import type { Context } from 'hono';
import { deleteCookie, setCookie } from 'hono/cookie';
import type { ServerConfig } from '../config.js';
import { SESSION_COOKIE, SESSION_LIFETIME_MS } from './sessions.js';

/** Decisions §4: HttpOnly, SameSite=Lax, Path=/, 14 days, Secure when {app_url} is https. */
const attributes = (config: ServerConfig) =>
  ({ httpOnly: true, sameSite: 'Lax', path: '/', secure: config.publicUrl.startsWith('https://') }) as const;

export function setSessionCookie(c: Context, config: ServerConfig, token: string) {
  setCookie(c, SESSION_COOKIE, token, { ...attributes(config), maxAge: Math.floor(SESSION_LIFETIME_MS / 1000) });
}

export function clearSessionCookie(c: Context, config: ServerConfig) {
  deleteCookie(c, SESSION_COOKIE, attributes(config));
}
