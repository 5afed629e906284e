import type { RunCreate } from '@testreport/contract';
import { codeownersFields, detectCi, detectCiNode, withBuildIdentity } from '@testreport/reporter';
import { UsageError } from '../lib/errors.js';
import type { ReportKind } from '../report/inputs.js';
import type { ScanResult } from './scan.js';

/** The flags of `reporter upload` that shape the run it creates or joins. */
export interface RunFlags {
  runTitle?: string;
  tags?: string;
  branch?: string;
  commit?: string;
  /** `i/n`: this report is shard i of n (1-based), as Playwright's `--shard`. */
  shard?: string;
  buildId?: string;
  group?: string;
  /** Where the report's file paths start; the repository's CODEOWNERS is found above it. Default: the current directory. */
  rootDir?: string;
}

export interface Shard {
  shardCurrent: number;
  shardTotal: number;
}

/** `--shard 2/3` → shard 2 of 3; anything else is a usage error naming the flag. */
export function parseShard(text: string): Shard {
  const m = /^\s*(\d{1,6})\s*\/\s*(\d{1,6})\s*$/.exec(text);
  const shardCurrent = Number(m?.[1]);
  const shardTotal = Number(m?.[2]);
  if (!m || shardCurrent < 1 || shardTotal < 1 || shardCurrent > shardTotal) {
    throw new UsageError(`--shard must be <index>/<total> with 1 ≤ index ≤ total, e.g. 2/3; got "${text}"`);
  }
  return { shardCurrent, shardTotal };
}

/**
 * Which shard a report is, strongest first: --shard; the shard Playwright wrote into its JSON report
 * (`config.shard`); for JUnit, which reports say nothing, the CI's parallel slot (CI_NODE_INDEX/
 * CI_NODE_TOTAL on GitLab, CIRCLE_NODE_INDEX on CircleCI, …). None: the report is the whole suite.
 */
export function shardOfReport(kind: ReportKind, scan: Pick<ScanResult, 'meta'>, flags: Pick<RunFlags, 'shard'>, env: NodeJS.ProcessEnv): Shard | undefined {
  if (flags.shard !== undefined) return parseShard(flags.shard);
  const { shardCurrent, shardTotal } = scan.meta;
  if (shardCurrent && shardTotal) return { shardCurrent, shardTotal };
  return kind === 'junit' ? detectCiNode(env) : undefined;
}

/**
 * The run an upload creates, or joins when the CI build (or --build-id) already has one: CI fields
 * detected from `env`, the report's own facts, then the flags on top.
 */
export function runBody(projectId: string, kind: ReportKind, scan: ScanResult, flags: RunFlags, env: NodeJS.ProcessEnv): RunCreate {
  const ci = withBuildIdentity(detectCi(env), { buildId: flags.buildId, group: flags.group }, env);
  const tags = flags.tags?.split(',').map((t) => t.trim()).filter(Boolean);
  const { shardCurrent: _c, shardTotal: _t, duration: _d, ...meta } = scan.meta;
  const body: RunCreate = { projectId, status: 'running', ...ci, ...meta, ...shardOfReport(kind, scan, flags, env) };
  if (flags.branch) body.branch = flags.branch;
  if (flags.commit) body.commitSha = flags.commit;
  if (flags.runTitle) body.runTitle = flags.runTitle;
  if (tags?.length) body.tags = tags;
  // The CODEOWNERS text goes as it is (the server resolves owners), as the reporter sends it.
  Object.assign(body, codeownersFields(flags.rootDir ?? process.cwd()));
  return body;
}
