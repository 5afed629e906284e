import { LIMITS } from './limits.js';

/**
 * ANSI escapes Playwright and other runners put into messages and output: OSC sequences (hyperlinks,
 * titles) first, then CSI/colour sequences.
 */
const ANSI = /\u001b\][\s\S]*?(?:\u0007|\u001b\\|\u009c)|[\u001b\u009b][[\]()#;?]*(?:\d{1,4}(?:[;:]\d{0,4})*)?[\dA-PR-TZcf-nq-uy=><~]/g;

export function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}

/** The caps a reporter applies before sending, so one pathological test cannot make a huge payload or heap. */
export const TEXT_CAPS = { output: LIMITS.outputBytes, error: LIMITS.errorTextBytes } as const;

/** Appends to a bounded buffer: runs can print megabytes per test, the server keeps `LIMITS.outputBytes`. */
export function appendCapped(current: string, more: string, max: number = TEXT_CAPS.output): string {
  if (current.length >= max) return current;
  const next = current + more;
  return next.length > max ? next.slice(0, max) : next;
}

/** Output as stored: escapes removed, then cut to the cap. */
export const cleanOutput = (text: string): string => stripAnsi(text).slice(0, TEXT_CAPS.output);
/** An error message or stack as stored: escapes removed, then cut to the cap. */
export const cleanError = (text: string): string => stripAnsi(text).slice(0, TEXT_CAPS.error);

export const TRUNCATION_MARKER = '\n…[truncated by testreport]';

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/**
 * Cuts a string to at most `max` UTF-16 units and marks the cut, rather than rejecting it
 * (docs/decisions.md §4). The cut never falls inside a surrogate pair: half an emoji is not text, and
 * SQLite would store it as U+FFFD, so the stored value would differ from the one the server holds.
 */
export function truncate(value: string, max: number): string {
  if (value.length <= max) return value;
  let end = Math.max(0, max - TRUNCATION_MARKER.length);
  if (end > 0 && isHighSurrogate(value.charCodeAt(end - 1))) end--;
  return value.slice(0, end) + TRUNCATION_MARKER;
}
