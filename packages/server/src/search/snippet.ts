import type { SearchField, SearchSnippet } from '@testreport/contract';

const BEFORE = 60;
const WIDTH = 200;

/**
 * Plain text around the first match in `text`, with every match inside it as offsets. Matching
 * here is JavaScript's case folding, the index's is the database's; if they disagree on some
 * character the snippet starts at the beginning of the field, without highlights.
 */
export function snippetOf(field: SearchField, text: string, needle: string): SearchSnippet {
  const hay = text.toLowerCase();
  const n = needle.toLowerCase();
  // toLowerCase keeps lengths for all but a few characters; offsets are into `text` only when it does.
  const aligned = hay.length === text.length;
  const first = aligned ? hay.indexOf(n) : -1;
  let start = first < 0 ? 0 : Math.max(0, first - BEFORE);
  // Never cut a surrogate pair in half.
  if (start > 0 && /[\udc00-\udfff]/.test(text[start]!)) start -= 1;
  let end = Math.min(text.length, Math.max(start + WIDTH, first + n.length));
  if (end < text.length && /[\udc00-\udfff]/.test(text[end]!)) end += 1;
  const lead = start > 0 ? '…' : '';
  const out = `${lead}${text.slice(start, end)}${end < text.length ? '…' : ''}`;
  const highlights: SearchSnippet['highlights'] = [];
  if (first >= 0) {
    for (let i = first; i >= 0 && i + n.length <= end; i = hay.indexOf(n, i + n.length)) {
      highlights.push({ start: i - start + lead.length, end: i - start + lead.length + n.length });
    }
  }
  return { in: field, text: out, highlights };
}
