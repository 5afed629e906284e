import type { Attempt, TestDetail } from '@testreport/contract';
import { shortSha } from './format.js';

export type PromptHistory = { status: string; commitSha: string | null; createdAt: string }[];

/**
 * "failed in 3 of the last 10 runs, first on abc1234": the case's newest 10 results (newest first),
 * failed or flaky ones counted, the oldest of them named by its commit.
 */
export function historyLine(history: PromptHistory): string {
  const window = history.slice(0, 10);
  const failing = window.filter((h) => h.status === 'failed' || h.status === 'flaky');
  if (window.length === 0) return '';
  if (failing.length === 0) return `passed in all of the last ${window.length} run${window.length === 1 ? '' : 's'}`;
  const first = failing[failing.length - 1];
  const at = first.commitSha ? shortSha(first.commitSha) : first.createdAt.slice(0, 10);
  return `failed in ${failing.length} of the last ${window.length} run${window.length === 1 ? '' : 's'}, first on ${at}`;
}

const fence = (text: string, lang = '') => {
  const ticks = text.includes('```') ? '````' : '```';
  return `${ticks}${lang}\n${text.trimEnd()}\n${ticks}`;
};

/** What "Copy prompt" copies: the test, where it is, the failing try's errors with code, the page snapshot and the history line. */
export function buildPrompt(test: TestDetail, attempt: Attempt | undefined, history: PromptHistory): string {
  const out = [`# Fix the failing Playwright test "${test.fullTitle}"`, ''];
  if (test.filePath) out.push(`- Location: ${test.filePath}${test.lineNumber ? `:${test.lineNumber}` : ''}`);
  out.push(`- Status: ${test.status}${test.attempts.length > 1 ? ` after ${test.attempts.length} tries` : ''}`);
  const line = historyLine(history);
  if (line) out.push(`- History: ${line}`);
  const errors = attempt?.errors ?? (test.error ? [{ message: test.error.message, stack: test.error.stack ?? null, location: null, snippet: null }] : []);
  errors.forEach((e, i) => {
    out.push('', errors.length > 1 ? `## Error ${i + 1} of ${errors.length}` : '## Error', '');
    if (e.location) out.push(`At ${e.location.file}:${e.location.line}:${e.location.column}`, '');
    out.push(fence(e.message));
    if (e.snippet) out.push('', fence(e.snippet));
  });
  const snapshot = attempt?.attachments.find((a) => a.name === 'error-context');
  if (snapshot) out.push('', '## Page snapshot at the failure', '', fence(snapshot.body, snapshot.contentType.includes('markdown') ? 'markdown' : ''));
  out.push('', 'Explain why it fails and propose a fix.');
  return out.join('\n');
}
