import type { MiddlewareHandler } from 'hono';

/** nosniff everywhere; HSTS once {app_url} is https. `appUrl` is read per request: it is known only after listening. */
export function securityHeaders(appUrl: () => string): MiddlewareHandler {
  return async function securityHeaders(c, next) {
    c.header('X-Content-Type-Options', 'nosniff');
    if (appUrl().startsWith('https://')) c.header('Strict-Transport-Security', 'max-age=31536000');
    await next();
  };
}
