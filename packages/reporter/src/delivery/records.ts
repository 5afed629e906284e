import type { ArtifactType, RunCreate, RunUpdate, TestCreate } from '@testreport/contract';

/**
 * The records every delivery is made of, whether they come live from Playwright, from a spool file
 * or from a report file: a run, its suites (parents first), batches of tests, artifacts and the
 * finish. Each has a client id (`cid`) from which its idempotency key is derived, so sending a
 * record twice stores it once.
 */
export type RunBody = Omit<RunCreate, 'projectId' | 'status'>;
/** What is sent for one test; runId and projectId are added at send time. */
export type TestBody = Omit<TestCreate, 'runId' | 'projectId'>;

export interface RunRecord { t: 'run'; cid: string; body: RunBody }
export interface SuiteRecord { t: 'suite'; cid: string; parentCid: string | null; body: { title: string; filePath?: string } }
export interface BatchRecord { t: 'batch'; cid: string; tests: { cid: string; body: TestBody }[] }
/** A test of a batch to send: its body, or the body's JSON (the live reporter serialises each result once, for its spool and its request). */
export type BatchTest = { cid: string; body: TestBody } | { cid: string; json: string };
/** An artifact as a spool stores it: always a file (bodies are written out before they are spooled). */
export interface ArtifactRecord { t: 'artifact'; cid: string; testCid: string; type: ArtifactType; fileName: string; path: string; retry?: number; snapshotPath?: string }
export interface FinishRecord { t: 'finish'; cid: string; body: RunUpdate }
/** The server confirmed a record and gave it these ids. */
export interface AckRecord { t: 'ack'; cid: string; id?: string; ids?: string[] }

/** An artifact ready to send: a file path (streamed from disk) or a body already in memory (sent as is). */
export interface ArtifactJob {
  cid: string;
  type: ArtifactType;
  fileName: string;
  source: string | Uint8Array;
  contentType?: string;
  /** The try of the test that made it. */
  retry?: number;
  /** A snapshot comparison's file: its baseline's path relative to the project root. */
  snapshotPath?: string;
}

export type RecordKind = 'run' | 'suite' | 'batch' | 'artifact' | 'finish';

/** How the reporter and its spool name records: `testreport-<kind>-<cid>`, independent of the run id. */
export const idempotencyKey = (kind: RecordKind, cid: string): string => `testreport-${kind}-${cid}`;
