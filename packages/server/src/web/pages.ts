import type { Hono } from 'hono';

// The dashboard is not built yet; `/` says where the API and its description are.
export function mountPages(app: Hono) {
  app.get('/', (c) =>
    c.html(`<!doctype html><meta charset="utf-8"><title>testreport</title>
<h1>testreport</h1><p>The API is at <code>/api/v1</code>; its OpenAPI description is at <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>.</p>`),
  );
}
