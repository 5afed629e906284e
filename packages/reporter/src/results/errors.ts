import { stripAnsi } from '@testreport/contract/core';

export interface Location {
  file: string;
  line: number;
  column: number;
}

/** Node's stack frames start with four spaces and "at " (what Playwright splits a stack at). */
const FRAME = /^ {4}at /;
/** A line of Playwright's code frame: `  12 |   code`, `> 13 |   code`, `     |     ^`. */
const SNIPPET_LINE = /^(?:>|\s)\s*\d*\s\|/;

/** The message part of a stack: the lines before the first frame. */
export function stackMessage(stack: string): string {
  const lines = stack.split('\n');
  const first = lines.findIndex((l) => FRAME.test(l));
  return (first < 0 ? lines : lines.slice(0, first)).join('\n');
}

/** Where the first frame outside node_modules points, as Playwright finds an error's location. */
export function stackLocation(stack: string): Location | undefined {
  for (const line of stack.split('\n')) {
    if (!FRAME.test(line)) continue;
    const m = /\(?((?:file:\/\/)?[^\s()]+?):(\d+):(\d+)\)?\s*$/.exec(line);
    if (!m || /[/\\]node_modules[/\\]/.test(m[1]) || m[1].startsWith('node:')) continue;
    return { file: m[1].replace(/^file:\/\//, ''), line: Number(m[2]), column: Number(m[3]) };
  }
  return undefined;
}

/**
 * The JSON report's `errors[]` hold Playwright's formatted text: the stack's message, a blank line
 * and the code frame, then the stack frames. Split back into message, snippet and stack (message
 * and frames, as the error's own `stack` was), so both sources store the same error.
 */
export function parseFormattedError(e: { message?: string; value?: string; location?: Location }): { message: string; stack?: string; snippet?: string; location?: Location } {
  const lines = stripAnsi(e.message ?? e.value ?? '').split('\n');
  let first = lines.findIndex((l) => FRAME.test(l));
  if (first < 0) first = lines.length;
  const head = lines.slice(0, first);
  const frames = lines.slice(first);
  let cut = head.length;
  while (cut > 0 && SNIPPET_LINE.test(head[cut - 1])) cut--;
  let snippet: string | undefined;
  if (cut < head.length && cut > 0 && head[cut - 1] === '') {
    snippet = head.slice(cut).join('\n');
    head.length = cut - 1;
  }
  const message = head.join('\n');
  return {
    message,
    ...(frames.length ? { stack: [message, ...frames].join('\n') } : {}),
    ...(snippet ? { snippet } : {}),
    ...(e.location ? { location: e.location } : {}),
  };
}
