import { appendFile } from 'node:fs/promises';
import type { TestReportClient } from '@testreport/client';

/** How many tests of each list the step summary asks for; the renderer cuts to size after that. */
export const STEP_SUMMARY_LIMIT = 200;

export interface StepSummaryOptions {
  /** Branch to compare with; default the project's default branch (server side). */
  base?: string;
  env?: Record<string, string | undefined>;
  /** Cancels the read (retries included), e.g. `AbortSignal.timeout(ms)`. */
  signal?: AbortSignal;
}

/**
 * On GitHub Actions, appends the run's Markdown summary to the job summary (`$GITHUB_STEP_SUMMARY`).
 * Returns the file written, or null when the variable is not set (not on GitHub Actions: nothing to
 * do). Errors are the caller's to report; `reporter summary`, `reporter upload --summary` and the
 * Playwright reporter's `summary: true` all end here.
 */
export async function appendStepSummary(client: TestReportClient, runId: string, opts: StepSummaryOptions = {}): Promise<string | null> {
  const file = (opts.env ?? process.env).GITHUB_STEP_SUMMARY;
  if (!file) return null;
  // The renderer comes with the SDK, which the caller has loaded already (it passes a client).
  const { renderRunSummary } = await import('@testreport/client/core');
  const summary = await client.runs.summary(runId, { limit: STEP_SUMMARY_LIMIT, ...(opts.base ? { base: opts.base } : {}) }, opts.signal ? { signal: opts.signal } : undefined);
  await appendStepSummaryText(file, renderRunSummary(summary, { format: 'markdown' }));
  return file;
}

/** Appends one summary as its own block (the job summary may already hold other steps' Markdown). */
export async function appendStepSummaryText(file: string, markdown: string): Promise<void> {
  await appendFile(file, `${markdown}\n\n`, 'utf8');
}
