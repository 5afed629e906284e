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
