import type { Context, Hono } from 'hono';

/**
 * The pages the account mails link to. Each reads the token from its URL, drops it from the address
 * bar and the Referer (it is a credential), and posts it as JSON to the API: no framework, no build.
 */
const page = (title: string, body: string, script: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${title} · testreport</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}
input,button{font:inherit;display:block;width:100%;margin:.25rem 0 .75rem;padding:.4rem;box-sizing:border-box}
#status{padding:.5rem 0}.error{color:#b00020}.ok{color:#1b5e20}[hidden]{display:none}</style></head>
<body><h1>${title}</h1>${body}<p id="status" role="status"></p>
<script>
const token = new URLSearchParams(location.search).get('token') || '';
history.replaceState(null, '', location.pathname);
const statusEl = document.getElementById('status');
function show(text, ok) { statusEl.textContent = text; statusEl.className = ok ? 'ok' : 'error'; }
async function post(path, body) {
  const res = await fetch(path, { method: 'POST', credentials: 'same-origin', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  let data = null;
  try { data = await res.json(); } catch {}
  return { status: res.status, data, message: (data && (data.message || (data.error && data.error.message))) || 'Unexpected answer (' + res.status + ')' };
}
if (!token) show('This link has no token. Open the link from your e-mail again.', false);
${script}
</script></body></html>`;

const VERIFY = page('Verify your e-mail', '', `
if (token) { show('Verifying…', true); post('/auth/verify-email', { token }).then((r) => show(r.message, r.status === 200)); }`);

const RESET = page(
  'Choose a new password',
  `<form id="form"><label>New password (8 to 256 characters)<input id="password" type="password" autocomplete="new-password" minlength="8" maxlength="256" required></label><button>Set password</button></form>`,
  `
document.getElementById('form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const r = await post('/auth/reset-password', { token, password: document.getElementById('password').value });
  show(r.message, r.status === 200);
  if (r.status === 200) e.target.hidden = true;
});`,
);

const ACCEPT = page(
  'Accept the invitation',
  `<form id="login" hidden><p>Sign in with the address the invitation was sent to.</p>
<label>E-mail<input id="email" type="email" autocomplete="email" required></label>
<label>Password<input id="password" type="password" autocomplete="current-password" required></label><button>Sign in and accept</button></form>`,
  `
const login = document.getElementById('login');
async function accept() {
  const r = await post('/api/v1/invitations/accept', { token });
  if (r.status === 401) { login.hidden = false; show('Sign in to accept.', true); return; }
  if (r.status === 200) { login.hidden = true; show('You joined the team as ' + r.data.role + '.', true); return; }
  show(r.message, false);
}
login.addEventListener('submit', async (e) => {
  e.preventDefault();
  const r = await post('/auth/login', { email: document.getElementById('email').value, password: document.getElementById('password').value });
  if (r.status !== 200) return show(r.message, false);
  accept();
});
if (token) accept();`,
);

const send = (html: string) => (c: Context) => {
  c.header('Referrer-Policy', 'no-referrer');
  c.header('Cache-Control', 'no-store');
  return c.html(html);
};

export function mountPages(app: Hono) {
  app.get('/verify-email', send(VERIFY));
  app.get('/reset-password', send(RESET));
  app.get('/accept-invitation', send(ACCEPT));
}
