import type { Child } from 'hono/jsx';

/**
 * Terminal colours in reported text (messages, snippets, output) as markup: SGR codes become
 * spans with classes, every other escape is dropped, so a page never shows a raw escape code.
 * Our reporter stores text without escapes; other clients of the API may not.
 */
const ESCAPE = /\u001b\[([0-9;]*)m|\u001b\][\s\S]*?(?:\u0007|\u001b\\)|\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b/g;
const COLOURS = ['black', 'red', 'green', 'yellow', 'blue', 'magenta', 'cyan', 'white'];

interface Style { fg?: string; bold?: boolean; dim?: boolean }

function apply(style: Style, codes: string): Style {
  const next = { ...style };
  for (const raw of (codes || '0').split(';')) {
    const n = Number(raw || 0);
    if (n === 0) { delete next.fg; delete next.bold; delete next.dim; }
    else if (n === 1) next.bold = true;
    else if (n === 2) next.dim = true;
    else if (n === 22) { delete next.bold; delete next.dim; }
    else if (n === 39) delete next.fg;
    else if (n >= 30 && n <= 37) next.fg = COLOURS[n - 30];
    else if (n >= 90 && n <= 97) next.fg = COLOURS[n - 90];
  }
  return next;
}

const classOf = (s: Style) => [s.fg && `ansi-${s.fg}`, s.bold && 'ansi-bold', s.dim && 'ansi-dim'].filter(Boolean).join(' ');

export function Ansi({ text }: { text: string }) {
  if (!text.includes('\u001b')) return <>{text}</>;
  const parts: Child[] = [];
  let style: Style = {};
  let last = 0;
  for (const m of text.matchAll(ESCAPE)) {
    const chunk = text.slice(last, m.index);
    if (chunk) parts.push(classOf(style) ? <span class={classOf(style)}>{chunk}</span> : chunk);
    if (m[1] !== undefined) style = apply(style, m[1]);
    last = m.index! + m[0].length;
  }
  const rest = text.slice(last);
  if (rest) parts.push(classOf(style) ? <span class={classOf(style)}>{rest}</span> : rest);
  return <>{parts}</>;
}
