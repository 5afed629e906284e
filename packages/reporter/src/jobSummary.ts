import type { TestReportClient } from '@testreport/client';
import { appendStepSummary } from './stepSummary.js';

/** The most the reporter waits for the summary after the run was delivered. */
export const JOB_SUMMARY_TIMEOUT_MS = 10_000;

/**
 * The reporter's `summary: true`: one read of the run's summary and one append to the GitHub job
 * summary, cancelled after JOB_SUMMARY_TIMEOUT_MS (retries included). It never throws and never
 * changes the run's outcome: a failure is one warning line.
 */
export async function writeJobSummary(client: TestReportClient, runId: string | undefined, say: (line: string) => void): Promise<void> {
  if (!runId || !process.env.GITHUB_STEP_SUMMARY) return;
  try {
    await appendStepSummary(client, runId, { env: process.env, signal: AbortSignal.timeout(JOB_SUMMARY_TIMEOUT_MS) });
  } catch (e) {
    say(`the job summary was not written: ${(e as Error).message}`);
  }
}
