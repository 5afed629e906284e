/** What users put in `['@testreport/reporter', { … }]`. Every field is optional. */
export interface ReporterOptions {
  /** API key of the project (TESTREPORT_API_KEY). */
  apiKey?: string;
  /** The server's {app_url} (TESTREPORT_URL, default http://localhost:4000). */
  url?: string;
  /** Project to report to (TESTREPORT_PROJECT_ID); defaults to the key's project from GET /me. */
  projectId?: string;
  /** Title shown for the run (TESTREPORT_RUN_TITLE). */
  runTitle?: string;
  /** Tags of the run (TESTREPORT_TAGS, comma separated). */
  tags?: string[];
  /**
   * Id shared by every shard/job of one CI build (TESTREPORT_BUILD_ID); all report into one run.
   * Default: the CI's own build id (GitHub GITHUB_RUN_ID, GitLab CI_PIPELINE_ID, …; docs/ci-builds.md).
   */
  buildId?: string;
  /**
   * Keeps independent test jobs of one build apart (TESTREPORT_GROUP), e.g. one run per browser.
   * Default: the CI's job name (GITHUB_JOB, CI_JOB_NAME, CIRCLE_JOB, …).
   */
  group?: string;
  /** Which tests' screenshots, videos and traces to upload (TESTREPORT_UPLOAD_ARTIFACTS; default failures). */
  uploadArtifacts?: 'all' | 'failures' | 'none';
  /** Forgive a failed run when every failure is a quarantined test (default true). */
  quarantine?: boolean;
  /** Where the spool file is written when the server cannot take everything (TESTREPORT_OUTPUT_DIR). */
  outputDir?: string;
  /** Turn reporting off (default true; TESTREPORT_ENABLED=false also turns it off). */
  enabled?: boolean;
  /** Allow sending the key over plain http to a non-loopback host (TESTREPORT_ALLOW_INSECURE_HTTP=true). */
  allowInsecureHttp?: boolean;
  /** Per-request timeout in ms (TESTREPORT_TIMEOUT_MS, default 30000). */
  timeoutMs?: number;
  /** Total time one call may take including retries, in ms (TESTREPORT_RETRY_BUDGET_MS, default 60000). */
  retryBudgetMs?: number;
  /** Retries per call on connection errors, 429 and 502–504 (default 3). */
  maxRetries?: number;
  /** On GitHub Actions, append the run's summary to the job summary after sending (TESTREPORT_SUMMARY=true). */
  summary?: boolean;
}

export interface ResolvedOptions {
  apiKey: string | undefined;
  url: string;
  projectId: string | undefined;
  runTitle: string | undefined;
  tags: string[];
  buildId: string | undefined;
  group: string | undefined;
  uploadArtifacts: 'all' | 'failures' | 'none';
  quarantine: boolean;
  outputDir: string;
  enabled: boolean;
  allowInsecureHttp: boolean;
  timeoutMs: number | undefined;
  retryBudgetMs: number | undefined;
  maxRetries: number | undefined;
  summary: boolean;
}

export const DEFAULT_OUTPUT_DIR = 'testreport-spool';

const envFlag = (v: string | undefined): boolean | undefined => {
  if (v === undefined || v === '') return undefined;
  return !/^(0|false|no|off)$/i.test(v.trim());
};
const envNumber = (v: string | undefined): number | undefined => {
  const n = v === undefined || v === '' ? NaN : Number(v);
  return Number.isFinite(n) && n > 0 ? n : undefined;
};

export function resolveOptions(o: ReporterOptions = {}, env: Record<string, string | undefined> = process.env): ResolvedOptions {
  const upload = o.uploadArtifacts ?? env.TESTREPORT_UPLOAD_ARTIFACTS;
  return {
    apiKey: o.apiKey ?? env.TESTREPORT_API_KEY,
    url: (o.url ?? env.TESTREPORT_URL ?? 'http://localhost:4000').replace(/\/+$/, ''),
    projectId: o.projectId ?? (env.TESTREPORT_PROJECT_ID || undefined),
    runTitle: o.runTitle ?? (env.TESTREPORT_RUN_TITLE || undefined),
    tags: o.tags ?? (env.TESTREPORT_TAGS ? env.TESTREPORT_TAGS.split(',').map((t) => t.trim()).filter(Boolean) : []),
    buildId: o.buildId ?? (env.TESTREPORT_BUILD_ID || undefined),
    group: o.group ?? (env.TESTREPORT_GROUP || undefined),
    uploadArtifacts: upload === 'all' || upload === 'none' ? upload : 'failures',
    quarantine: o.quarantine ?? true,
    outputDir: o.outputDir ?? env.TESTREPORT_OUTPUT_DIR ?? DEFAULT_OUTPUT_DIR,
    // An explicit `enabled: false` wins; otherwise the environment can switch reporting off.
    enabled: o.enabled === false ? false : (envFlag(env.TESTREPORT_ENABLED) ?? true),
    allowInsecureHttp: o.allowInsecureHttp ?? envFlag(env.TESTREPORT_ALLOW_INSECURE_HTTP) ?? false,
    timeoutMs: o.timeoutMs ?? envNumber(env.TESTREPORT_TIMEOUT_MS),
    retryBudgetMs: o.retryBudgetMs ?? envNumber(env.TESTREPORT_RETRY_BUDGET_MS),
    maxRetries: o.maxRetries,
    summary: o.summary ?? envFlag(env.TESTREPORT_SUMMARY) ?? false,
  };
}
