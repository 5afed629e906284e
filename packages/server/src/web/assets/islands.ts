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
  // Visual review (pages/visual.tsx): j / k move between snapshots, a submits the focused one's Accept or Undo.
  if (document.querySelector('[data-visual-review]')) {
    const snaps = () => [...document.querySelectorAll('[data-snapshot]')];
    const focusAt = (i) => { const list = snaps(); const el = list[Math.max(0, Math.min(list.length - 1, i))]; if (el) { el.focus(); el.scrollIntoView({ block: 'start' }); } };
    if (location.hash) { const el = document.getElementById(decodeURIComponent(location.hash.slice(1))); if (el) el.focus(); }
    document.addEventListener('keydown', (e) => {
      if (e.ctrlKey || e.metaKey || e.altKey || (e.target.closest && e.target.closest('input, textarea, select'))) return;
      const current = document.activeElement && document.activeElement.closest ? document.activeElement.closest('[data-snapshot]') : null;
      const index = current ? snaps().indexOf(current) : -1;
      if (e.key === 'j') { e.preventDefault(); focusAt(index + 1); }
      else if (e.key === 'k') { e.preventDefault(); focusAt(index - 1); }
      else if (e.key === 'a' && current) { const form = current.querySelector('form[data-snapshot-action]'); if (form) { e.preventDefault(); form.requestSubmit(); } }
    });
  }
  // Snapshot comparisons (components/imageDiff.tsx): the modes of Playwright's report, by keyboard too.
  for (const box of document.querySelectorAll('[data-imgdiff]')) {
    const modes = box.getAttribute('data-imgdiff').split('|').filter(Boolean);
    const images = box.querySelector('.imgdiff-images');
    if (modes.length < 2 || !images) continue;
    const src = {};
    for (const f of images.querySelectorAll('figure[data-part]')) src[f.getAttribute('data-part')] = f.querySelector('img').getAttribute('src');
    const bar = document.createElement('div');
    bar.className = 'imgdiff-modes';
    bar.setAttribute('role', 'group');
    bar.setAttribute('aria-label', 'Comparison view');
    const view = document.createElement('div');
    view.className = 'imgdiff-view';
    const figure = (part, label) => {
      const f = document.createElement('figure');
      const img = document.createElement('img');
      img.src = src[part];
      img.alt = label;
      const cap = document.createElement('figcaption');
      cap.className = 'small muted';
      cap.textContent = label;
      f.append(img, cap);
      return f;
    };
    const slider = () => {
      const wrap = document.createElement('div');
      wrap.className = 'imgdiff-slider';
      const base = document.createElement('img');
      base.src = src.expected;
      base.alt = 'Expected';
      const top = document.createElement('img');
      top.src = src.actual;
      top.alt = 'Actual';
      top.className = 'imgdiff-top';
      const range = document.createElement('input');
      range.type = 'range';
      range.min = '0';
      range.max = '100';
      range.value = '50';
      range.setAttribute('aria-label', 'Share of the actual image shown, from the left');
      const set = () => { top.style.clipPath = 'inset(0 ' + (100 - Number(range.value)) + '% 0 0)'; };
      range.addEventListener('input', set);
      set();
      const cap = document.createElement('p');
      cap.className = 'small muted';
      cap.textContent = 'Actual on the left, expected on the right of the line.';
      wrap.append(base, top);
      view.append(wrap, range, cap);
    };
    const show = (mode) => {
      for (const b of bar.children) b.setAttribute('aria-pressed', String(b.textContent === mode));
      view.replaceChildren();
      if (mode === 'Diff') view.append(figure('diff', 'Diff'));
      else if (mode === 'Actual') view.append(figure('actual', 'Actual'));
      else if (mode === 'Expected') view.append(figure('expected', 'Expected'));
      else if (mode === 'Side by side') view.append(figure('expected', 'Expected'), figure('actual', 'Actual'));
      else slider();
    };
    for (const mode of modes) {
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = mode;
      b.addEventListener('click', () => show(mode));
      bar.append(b);
    }
    images.hidden = true;
    images.after(bar, view);
    show(modes[0]);
  }
})();
`;
