import type { TestCreate } from '@testreport/contract';

/** One level of the suite tree: a JUnit <testsuite>, a Playwright file or describe block. */
export interface SuiteRef {
  title: string;
  filePath?: string;
}

/** A file the report points at (resolved to an absolute path), or a body the report carries. */
export interface AttachmentRef {
  name: string;
  path?: string;
  body?: Buffer;
  contentType?: string;
  /** The try that made it, when the report says (Playwright: its result's `retry`). */
  retry?: number;
  /** A snapshot comparison's file: its baseline's path relative to the project root. */
  snapshotPath?: string;
}

/** A test as the report describes it, before it belongs to a run. */
export type ParsedTest = Omit<TestCreate, 'runId' | 'projectId'>;

export interface TestRecord {
  kind: 'test';
  suites: SuiteRef[];
  test: ParsedTest;
  attachments: AttachmentRef[];
  /** Playwright project (browser) the result belongs to. */
  project?: string;
}

/** Run-level facts a report carries (Playwright's config and stats). */
export interface ReportMeta {
  kind: 'meta';
  frameworkVersion?: string;
  workers?: number;
  shardCurrent?: number;
  shardTotal?: number;
  /** Wall-clock duration of the whole run in ms, when the report states it. */
  duration?: number;
}

export type ReportRecord = TestRecord | ReportMeta;

/** A report that cannot be read as what it claims to be: a usage error (exit 2), nothing is created. */
export class MalformedReportError extends Error {
  constructor(
    readonly file: string,
    reason: string,
  ) {
    super(`${file}: ${reason}`);
    this.name = 'MalformedReportError';
  }
}
