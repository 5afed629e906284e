// ANSI colour and cursor sequences that Playwright writes into error messages and snippets.
const ANSI = /[\u001b\u009b][[\]()#;?]*(?:(?:(?:[a-zA-Z\d]*(?:;[a-zA-Z\d]*)*)?\u0007)|(?:(?:\d{1,4}(?:;\d{0,4})*)?[\dA-PR-TZcf-ntqry=><~]))/g;

export function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}

/** Appends to a bounded buffer: reports can hold megabytes of output per test, the server keeps 1 MiB. */
export function appendCapped(current: string, more: string, max: number): string {
  if (current.length >= max) return current;
  const next = current + more;
  return next.length > max ? next.slice(0, max) : next;
}

export const OUTPUT_CAP = 1024 * 1024;
export const ERROR_CAP = 64 * 1024;
