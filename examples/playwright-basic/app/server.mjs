#!/usr/bin/env node
// A tiny task list app for the example suite: two static pages, a JSON API kept in memory, and a
// "weekly report" endpoint whose first computation is slow (a cold cache), which is what makes
// tests/report.spec.ts genuinely flaky. No dependencies: node:http only.
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const port = Number(process.env.APP_PORT ?? 3123);
const publicDir = fileURLToPath(new URL('./public/', import.meta.url));

const tasks = [
  { id: 1, title: 'Write the release notes', priority: 'high', done: false },
  { id: 2, title: 'Review the login form', priority: 'medium', done: false },
  { id: 3, title: 'Rotate the CI API key', priority: 'medium', done: true },
];
let nextId = tasks.length + 1;

// The report is expensive to build the first time (think: an aggregate query on a cold database);
// afterwards it is served from memory for a while. The cold latency is random, 500–1500 ms, and
// the report page gives up after 750 ms: on a cold start it fails about three times in four.
const REPORT_TTL_MS = 60_000;
let reportCache = null;

async function weeklyReport() {
  if (reportCache && Date.now() - reportCache.at < REPORT_TTL_MS) return reportCache.value;
  const coldMs = 500 + Math.floor(Math.random() * 1000);
  await new Promise((r) => setTimeout(r, coldMs));
  const value = { open: tasks.filter((t) => !t.done).length, done: tasks.filter((t) => t.done).length, builtInMs: coldMs };
  reportCache = { at: Date.now(), value };
  return value;
}

const types = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };
const pages = { '/': 'index.html', '/new': 'new.html', '/report': 'report.html' };

function sendJson(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function readJson(req) {
  let raw = '';
  for await (const chunk of req) raw += chunk;
  try {
    return JSON.parse(raw || '{}');
  } catch {
    return null;
  }
}

const server = createServer(async (req, res) => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  try {
    if (url.pathname === '/api/tasks' && req.method === 'GET') {
      const priority = url.searchParams.get('priority');
      return sendJson(res, 200, { data: priority ? tasks.filter((t) => t.priority === priority) : tasks });
    }
    if (url.pathname === '/api/tasks' && req.method === 'POST') {
      const body = await readJson(req);
      const title = typeof body?.title === 'string' ? body.title.trim() : '';
      if (!title) return sendJson(res, 400, { error: 'Title is required' });
      const priority = ['low', 'medium', 'high'].includes(body.priority) ? body.priority : 'medium';
      const task = { id: nextId++, title, priority, done: false };
      tasks.push(task);
      return sendJson(res, 201, task);
    }
    if (url.pathname === '/api/report' && req.method === 'GET') return sendJson(res, 200, await weeklyReport());
    const file = pages[url.pathname] ?? (url.pathname.startsWith('/static/') ? url.pathname.slice('/static/'.length) : null);
    if (file && !file.includes('..')) {
      const body = await readFile(join(publicDir, file));
      res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' });
      return res.end(body);
    }
    sendJson(res, 404, { error: 'Not found' });
  } catch (err) {
    sendJson(res, 500, { error: String(err) });
  }
});

server.listen(port, '127.0.0.1', () => process.stdout.write(`task app listening on http://127.0.0.1:${port}\n`));
for (const signal of ['SIGTERM', 'SIGINT']) process.once(signal, () => server.close(() => process.exit(0)));
