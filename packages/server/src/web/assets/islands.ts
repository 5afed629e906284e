/**
 * The dashboard's only script (CSP: script-src 'self'). Every page works without it; it adds the
 * copy buttons, confirmations, auto-submitting selects and the live refresh of running runs.
 */
export const ISLANDS = `
(() => {
  document.addEventListener('click', (e) => {
    const btn = e.target.closest('[data-copy]');
    if (!btn) return;
    const src = document.getElementById(btn.getAttribute('data-copy'));
    if (!src) return;
    navigator.clipboard.writeText(src.textContent.trim()).then(() => { btn.textContent = 'Copied'; }, () => { btn.textContent = 'Copy failed: select the text'; });
  });
  document.addEventListener('submit', (e) => {
    const msg = e.target.getAttribute && e.target.getAttribute('data-confirm');
    if (msg && !confirm(msg)) e.preventDefault();
  });
  document.addEventListener('change', (e) => {
    if (e.target.matches && e.target.matches('select[data-autosubmit]')) e.target.form.requestSubmit();
  });
  // Runs still running: refetch this same URL every few seconds and swap the live region in place.
  const live = () => document.querySelector('[data-live-region]');
  const tick = async () => {
    const region = live();
    if (!region || !region.querySelector('[data-running]')) return;
    try {
      const res = await fetch(location.href, { credentials: 'same-origin', headers: { Accept: 'text/html' } });
      if (res.ok) {
        const doc = new DOMParser().parseFromString(await res.text(), 'text/html');
        const next = doc.querySelector('[data-live-region]');
        if (next) region.replaceWith(document.importNode(next, true));
      }
    } catch {}
    setTimeout(tick, 5000);
  };
  setTimeout(tick, 5000);
})();
`;
