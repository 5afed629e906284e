// A server that does nothing but read each request's body and answer with a fixed reply: what the
// bench's own HTTP client allows on this machine (issue 30, goal 1), since it shares the cores with
// whatever server it measures.
import { spawn } from 'node:child_process';
import { stopperOf } from './server.mjs';

const SOURCE = `
const http = require('node:http');
const [status, body] = JSON.parse(process.env.BARE_REPLY);
const server = http.createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => console.log('bare listening on http://127.0.0.1:' + server.address().port));
`;

/** Starts the bare server answering every request with `status` and `body`; its url ends without /api/v1 (bench/lib/http.mjs adds it). */
export async function startBareServer(status, body) {
  const child = spawn(process.execPath, ['-e', SOURCE], { env: { ...process.env, BARE_REPLY: JSON.stringify([status, body]) }, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /bare listening on (\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`bare server exited with ${code}`)));
  });
  child.stdout.resume();
  return { url, pid: child.pid, stop: stopperOf(child) };
}
