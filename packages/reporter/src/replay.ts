import type { TestReportClient } from '@testreport/client';
import type { ReplayProgress, ReplayResult } from './spool.js';

// Its own module: spool.ts needs it too, and importing it from here made the two import each other.
export { SPOOL_VERSION } from './spoolVersion.js';

/**
 * Sends what a spool file holds and the server has not acknowledged, in order (run, suites, tests,
 * artifacts, finish), and appends the acks to the file. Safe to run again after a partial failure.
 * The replay code (and the SDK under it) is loaded on the first call, so the reporter's entry stays light.
 */
export async function replaySpool(file: string, client: TestReportClient, opts: { onProgress?: (p: ReplayProgress) => void } = {}): Promise<ReplayResult> {
  const { replaySpool: replay } = await import('./spool.js');
  return replay(file, client, opts);
}
