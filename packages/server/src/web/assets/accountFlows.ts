/**
 * The script of the pages the account mails link to (`<body data-flow="verify|reset|accept">`).
 * Each reads the token from its URL, drops it from the address bar (it is a credential), and posts
 * it as JSON to the API.
 */
export const ACCOUNT_FLOWS = `
(() => {
  const flow = document.body.dataset.flow;
  const token = new URLSearchParams(location.search).get('token') || '';
  history.replaceState(null, '', location.pathname);
  const statusEl = document.getElementById('status');
  function show(text, ok) { statusEl.textContent = text; statusEl.className = 'notice' + (ok ? '' : ' error'); statusEl.hidden = false; }
  // Under the page's no-referrer policy the Fetch standard sends "Origin: null" on a POST (Chromium
  // sends the origin anyway), which the server refuses as CSRF: this same-origin request may name its
  // origin and page (the token is already gone from the URL).
  async function post(path, body) {
    const res = await fetch(path, { method: 'POST', credentials: 'same-origin', referrerPolicy: 'same-origin', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    let data = null;
    try { data = await res.json(); } catch {}
    return { status: res.status, data, message: (data && (data.message || (data.error && data.error.message))) || 'Unexpected answer (' + res.status + ')' };
  }
  if (!token) return show('This link has no token. Open the link from your e-mail again.', false);

  if (flow === 'verify') {
    show('Verifying…', true);
    post('/auth/verify-email', { token }).then((r) => show(r.message, r.status === 200));
  }

  if (flow === 'reset') {
    const form = document.getElementById('form');
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const r = await post('/auth/reset-password', { token, password: document.getElementById('password').value });
      show(r.message, r.status === 200);
      if (r.status === 200) form.hidden = true;
    });
  }

  if (flow === 'accept') {
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
    accept();
  }
})();
`;
