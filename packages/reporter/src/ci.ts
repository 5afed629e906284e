import { execFile, execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { headBranch } from './gitHead.js';

// ci-info is read only when no known provider matched, so loading the reporter does not load it.
let ciInfo: { isCI: boolean; name: string | null } | undefined;
const otherCi = () => (ciInfo ??= createRequire(import.meta.url)('ci-info') as { isCI: boolean; name: string | null });

/** The CI and VCS fields of a run (named as on the run resource, so they spread into `runs.create`). */
export interface CiMetadata {
  ciProvider?: string;
  /**
   * The id every parallel job/shard of one CI build shares and that a re-run of that build keeps:
   * the server joins all runs with the same (ciBuildId, group) into one run.
   */
  ciBuildId?: string;
  /** Which attempt of the build this job is, when the CI counts them (re-runs); else the server derives it. */
  attempt?: number;
  /**
   * Several independent test jobs of one build (e2e and component tests, one job per browser) stay
   * separate runs: by default the CI's job name, which all parallel copies of one job share.
   */
  group?: string;
  ciBuildUrl?: string;
  branch?: string;
  commitSha?: string;
  commitMessage?: string;
  commitAuthor?: string;
}

type Env = Record<string, string | undefined>;

const clean = (v: string | undefined): string | undefined => {
  const t = v?.trim();
  return t ? t : undefined;
};
/** Jenkins and Azure hand out `origin/main` or `refs/heads/main`; users expect `main`. */
const branchName = (v: string | undefined): string | undefined =>
  clean(v)?.replace(/^refs\/heads\//, '').replace(/^origin\//, '');

/** A whole number ≥ 1 (or ≥ 0 with `zeroBased`, then shifted to 1-based). */
const int = (v: string | undefined, zeroBased = false): number | undefined => {
  const t = clean(v);
  if (!t || !/^\d+$/.test(t)) return undefined;
  const n = Number(t) + (zeroBased ? 1 : 0);
  return Number.isSafeInteger(n) && n >= 1 ? n : undefined;
};

/** This job's slot among the CI's parallel copies of one job (1-based), for reports that do not say their shard. */
export interface CiNode {
  shardCurrent: number;
  shardTotal: number;
}
const node = (index: number | undefined, total: number | undefined): CiNode | undefined =>
  index !== undefined && total !== undefined && index <= total ? { shardCurrent: index, shardTotal: total } : undefined;

interface Provider {
  name: string;
  detect(env: Env): boolean;
  read(env: Env): Omit<CiMetadata, 'ciProvider'>;
  /** The CI's own parallelism (GitLab `parallel:`, CircleCI `parallelism:`, …), where it exposes one. */
  node?(env: Env): CiNode | undefined;
}

// ci-info only names the vendor; branch, sha and build links need each vendor's own variables.
const PROVIDERS: Provider[] = [
  {
    name: 'GitHub Actions',
    detect: (e) => e.GITHUB_ACTIONS === 'true',
    read: (e) => ({
      branch: branchName(e.GITHUB_HEAD_REF) ?? branchName(e.GITHUB_REF_NAME),
      commitSha: clean(e.GITHUB_SHA),
      // One id for every matrix job of a workflow run, kept by "Re-run jobs"; GITHUB_RUN_ATTEMPT counts those.
      ciBuildId: clean(e.GITHUB_RUN_ID),
      attempt: int(e.GITHUB_RUN_ATTEMPT),
      group: clean(e.GITHUB_JOB),
      // Without /attempts/N: the run spans attempts, and this page shows the latest.
      ciBuildUrl:
        e.GITHUB_RUN_ID && e.GITHUB_REPOSITORY
          ? `${e.GITHUB_SERVER_URL ?? 'https://github.com'}/${e.GITHUB_REPOSITORY}/actions/runs/${e.GITHUB_RUN_ID}`
          : undefined,
      commitAuthor: clean(e.GITHUB_ACTOR),
    }),
  },
  {
    name: 'GitLab CI',
    detect: (e) => !!e.GITLAB_CI,
    read: (e) => ({
      branch: branchName(e.CI_MERGE_REQUEST_SOURCE_BRANCH_NAME) ?? branchName(e.CI_COMMIT_BRANCH) ?? branchName(e.CI_COMMIT_REF_NAME),
      commitSha: clean(e.CI_COMMIT_SHA),
      commitMessage: clean(e.CI_COMMIT_MESSAGE),
      commitAuthor: clean(e.CI_COMMIT_AUTHOR),
      // A retried job stays in its pipeline; GitLab has no attempt variable, the server counts retries.
      ciBuildId: clean(e.CI_PIPELINE_ID),
      group: gitlabJob(e.CI_JOB_NAME),
      ciBuildUrl: clean(e.CI_PIPELINE_URL) ?? clean(e.CI_JOB_URL),
    }),
    // `parallel: N` names its jobs "test 1/3"; a `parallel: matrix` job is its own group, not a shard.
    node: (e) => (PARALLEL_SUFFIX.test(e.CI_JOB_NAME ?? '') ? node(int(e.CI_NODE_INDEX), int(e.CI_NODE_TOTAL)) : undefined),
  },
  {
    name: 'CircleCI',
    detect: (e) => !!e.CIRCLECI,
    read: (e) => ({
      branch: branchName(e.CIRCLE_BRANCH),
      commitSha: clean(e.CIRCLE_SHA1),
      commitAuthor: clean(e.CIRCLE_USERNAME),
      // "Rerun failed jobs" makes a new workflow id; the workspace id stays the one of the first workflow.
      ciBuildId: clean(e.CIRCLE_WORKFLOW_WORKSPACE_ID) ?? clean(e.CIRCLE_WORKFLOW_ID) ?? clean(e.CIRCLE_BUILD_NUM),
      group: clean(e.CIRCLE_JOB),
      ciBuildUrl: clean(e.CIRCLE_BUILD_URL),
    }),
    node: (e) => node(int(e.CIRCLE_NODE_INDEX, true), int(e.CIRCLE_NODE_TOTAL)),
  },
  {
    name: 'Jenkins',
    detect: (e) => !!(e.JENKINS_URL && (e.BUILD_ID || e.BUILD_NUMBER)),
    read: (e) => ({
      branch: branchName(e.CHANGE_BRANCH) ?? branchName(e.BRANCH_NAME) ?? branchName(e.GIT_BRANCH),
      commitSha: clean(e.GIT_COMMIT),
      commitAuthor: clean(e.CHANGE_AUTHOR) ?? clean(e.GIT_AUTHOR_NAME),
      // BUILD_NUMBER counts per job: two jobs' build #3 are different builds. BUILD_TAG names the job too.
      // Parallel stages share it; a replayed build is a new number, hence a new run.
      ciBuildId: clean(e.BUILD_TAG) ?? clean(e.BUILD_NUMBER) ?? clean(e.BUILD_ID),
      ciBuildUrl: clean(e.BUILD_URL),
    }),
  },
  {
    name: 'Azure Pipelines',
    detect: (e) => !!e.TF_BUILD,
    read: (e) => ({
      branch: branchName(e.SYSTEM_PULLREQUEST_SOURCEBRANCH) ?? branchName(e.BUILD_SOURCEBRANCH) ?? branchName(e.BUILD_SOURCEBRANCHNAME),
      commitSha: clean(e.BUILD_SOURCEVERSION),
      commitMessage: clean(e.BUILD_SOURCEVERSIONMESSAGE),
      commitAuthor: clean(e.BUILD_REQUESTEDFOR),
      // "Rerun failed jobs" keeps the build id and counts SYSTEM_JOBATTEMPT up.
      ciBuildId: clean(e.BUILD_BUILDID),
      attempt: int(e.SYSTEM_JOBATTEMPT),
      group: [clean(e.SYSTEM_STAGENAME), clean(e.SYSTEM_PHASENAME)].filter(Boolean).join('.') || undefined,
      ciBuildUrl:
        e.SYSTEM_TEAMFOUNDATIONCOLLECTIONURI && e.SYSTEM_TEAMPROJECT && e.BUILD_BUILDID
          ? `${e.SYSTEM_TEAMFOUNDATIONCOLLECTIONURI.replace(/\/?$/, '/')}${encodeURIComponent(e.SYSTEM_TEAMPROJECT)}/_build/results?buildId=${e.BUILD_BUILDID}`
          : undefined,
    }),
    node: (e) => node(int(e.SYSTEM_JOBPOSITIONINPHASE), int(e.SYSTEM_TOTALJOBSINPHASE)),
  },
  {
    name: 'Buildkite',
    detect: (e) => !!e.BUILDKITE,
    read: (e) => ({
      branch: branchName(e.BUILDKITE_BRANCH),
      commitSha: clean(e.BUILDKITE_COMMIT),
      commitMessage: clean(e.BUILDKITE_MESSAGE),
      commitAuthor: clean(e.BUILDKITE_BUILD_AUTHOR),
      // A retried job stays in its build; BUILDKITE_RETRY_COUNT is 0 for the first try.
      ciBuildId: clean(e.BUILDKITE_BUILD_ID) ?? clean(e.BUILDKITE_BUILD_NUMBER),
      attempt: int(e.BUILDKITE_RETRY_COUNT, true),
      group: clean(e.BUILDKITE_STEP_KEY) ?? clean(e.BUILDKITE_STEP_ID),
      ciBuildUrl: clean(e.BUILDKITE_BUILD_URL),
    }),
    node: (e) => node(int(e.BUILDKITE_PARALLEL_JOB, true), int(e.BUILDKITE_PARALLEL_JOB_COUNT)),
  },
  {
    name: 'Bitbucket Pipelines',
    detect: (e) => !!e.BITBUCKET_COMMIT,
    read: (e) => ({
      branch: branchName(e.BITBUCKET_BRANCH),
      commitSha: clean(e.BITBUCKET_COMMIT),
      // Parallel steps share the pipeline's number, and "Rerun failed steps" keeps it.
      ciBuildId: clean(e.BITBUCKET_BUILD_NUMBER),
      ciBuildUrl:
        e.BITBUCKET_GIT_HTTP_ORIGIN && e.BITBUCKET_BUILD_NUMBER
          ? `${e.BITBUCKET_GIT_HTTP_ORIGIN}/addon/pipelines/home#!/results/${e.BITBUCKET_BUILD_NUMBER}`
          : undefined,
    }),
    node: (e) => node(int(e.BITBUCKET_PARALLEL_STEP, true), int(e.BITBUCKET_PARALLEL_STEP_COUNT)),
  },
  {
    name: 'Travis CI',
    detect: (e) => !!e.TRAVIS,
    read: (e) => ({
      branch: branchName(e.TRAVIS_PULL_REQUEST_BRANCH) ?? branchName(e.TRAVIS_BRANCH),
      commitSha: clean(e.TRAVIS_PULL_REQUEST_SHA) ?? clean(e.TRAVIS_COMMIT),
      commitMessage: clean(e.TRAVIS_COMMIT_MESSAGE),
      // Every job of the build matrix shares it; "Restart build" keeps it.
      ciBuildId: clean(e.TRAVIS_BUILD_ID),
      ciBuildUrl: clean(e.TRAVIS_BUILD_WEB_URL),
    }),
  },
  {
    // TeamCity exports few variables by default; branch and message come from git.
    name: 'TeamCity',
    detect: (e) => !!e.TEAMCITY_VERSION,
    read: (e) => ({
      commitSha: clean(e.BUILD_VCS_NUMBER),
      ciBuildId: clean(e.BUILD_NUMBER),
      ciBuildUrl: clean(e.BUILD_URL),
    }),
  },
  {
    name: 'Drone',
    detect: (e) => !!e.DRONE,
    read: (e) => ({
      branch: branchName(e.DRONE_SOURCE_BRANCH) ?? branchName(e.DRONE_BRANCH),
      commitSha: clean(e.DRONE_COMMIT_SHA) ?? clean(e.DRONE_COMMIT),
      commitMessage: clean(e.DRONE_COMMIT_MESSAGE),
      commitAuthor: clean(e.DRONE_COMMIT_AUTHOR_NAME) ?? clean(e.DRONE_COMMIT_AUTHOR),
      // Pipelines (stages) of one build share the number; a restart is a new number.
      ciBuildId: clean(e.DRONE_BUILD_NUMBER),
      group: clean(e.DRONE_STAGE_NAME),
      ciBuildUrl: clean(e.DRONE_BUILD_LINK),
    }),
  },
];

const PARALLEL_SUFFIX = / \d+\/\d+$/;
/** "e2e 2/3" → "e2e": every job of `parallel: 3` is one group. */
const gitlabJob = (v: string | undefined): string | undefined => clean(v?.replace(PARALLEL_SUFFIX, ''));

const GIT_OPTIONS = { encoding: 'utf8', timeout: 3_000 } as const;
const LOG_ARGS = ['log', '-1', '--format=%H%n%an%n%s'];
const BRANCH_ARGS = ['rev-parse', '--abbrev-ref', 'HEAD'];

function git(args: string[], cwd?: string): string | undefined {
  try {
    return clean(execFileSync('git', args, { ...GIT_OPTIONS, cwd, stdio: ['ignore', 'pipe', 'ignore'] }));
  } catch {
    // No git, not a repository, or a shallow checkout without the commit: the fields stay empty.
    return undefined;
  }
}

/** `git` without blocking the event loop: Playwright's process dispatches tests meanwhile. */
function gitAsync(args: string[], cwd?: string): Promise<string | undefined> {
  return new Promise((done) => {
    try {
      const child = execFile('git', args, { ...GIT_OPTIONS, cwd }, (err, out) => done(err ? undefined : clean(out)));
      child.stdin?.end();
    } catch {
      done(undefined);
    }
  });
}

type GitFields = Pick<CiMetadata, 'branch' | 'commitSha' | 'commitMessage' | 'commitAuthor'>;

function gitFields(log: string | undefined, branch: string | undefined): GitFields {
  const [commitSha, commitAuthor, ...subject] = log ? log.split('\n') : [];
  return {
    branch: branch && branch !== 'HEAD' ? branch : undefined,
    commitSha: clean(commitSha),
    commitAuthor: clean(commitAuthor),
    commitMessage: clean(subject.join('\n')),
  };
}

/** Branch, sha, subject and author of HEAD from the local checkout. */
export function detectGit(cwd?: string): GitFields {
  const log = git(LOG_ARGS, cwd);
  if (!log) return gitFields(undefined, undefined);
  // The HEAD file names the branch (gitHead.ts); git is asked only when it does not say.
  const branch = headBranch(cwd);
  return gitFields(log, branch === undefined ? git(BRANCH_ARGS, cwd) : (branch ?? undefined));
}

/** `detectGit` in the background: Playwright's process does not wait for git. */
async function detectGitAsync(cwd?: string): Promise<GitFields> {
  const log = await gitAsync(LOG_ARGS, cwd);
  if (!log) return gitFields(undefined, undefined);
  const branch = headBranch(cwd);
  return gitFields(log, branch === undefined ? await gitAsync(BRANCH_ARGS, cwd) : (branch ?? undefined));
}

export interface DetectCiOptions {
  /** Fall back to the local git checkout for fields the CI does not provide (default true). */
  git?: boolean;
  cwd?: string;
}

/** What the CI's own variables say; `needsGit` when git should fill gaps. */
function fromEnv(env: Env, opts: DetectCiOptions): { out: CiMetadata; needsGit: boolean } {
  const provider = PROVIDERS.find((p) => p.detect(env));
  const out: CiMetadata = {};
  if (provider) Object.assign(out, { ciProvider: provider.name }, provider.read(env));
  else if (env === process.env && otherCi().isCI) out.ciProvider = otherCi().name ?? 'CI';
  return { out, needsGit: opts.git !== false && (!out.branch || !out.commitSha || !out.commitMessage || !out.commitAuthor) };
}

function withGit(out: CiMetadata, g: GitFields | undefined): CiMetadata {
  if (g) {
    // git's sha only stands in when it is the commit the CI reported (or the CI said nothing).
    const sameCommit = !out.commitSha || out.commitSha === g.commitSha;
    out.branch ??= g.branch;
    out.commitSha ??= g.commitSha;
    if (sameCommit) {
      out.commitMessage ??= g.commitMessage;
      out.commitAuthor ??= g.commitAuthor;
    }
  }
  for (const k of Object.keys(out) as (keyof CiMetadata)[]) if (out[k] === undefined) delete out[k];
  return out;
}

/**
 * CI provider, build id/URL, branch and commit of the current process. Known CI providers are read
 * from their own variables; any other CI that ci-info recognises is named; git fills the gaps.
 */
export function detectCi(env: Env = process.env, opts: DetectCiOptions = {}): CiMetadata {
  const { out, needsGit } = fromEnv(env, opts);
  return withGit(out, needsGit ? detectGit(opts.cwd) : undefined);
}

/** `detectCi` without blocking: what the reporter uses inside Playwright's process. */
export async function detectCiAsync(env: Env = process.env, opts: DetectCiOptions = {}): Promise<CiMetadata> {
  const { out, needsGit } = fromEnv(env, opts);
  return withGit(out, needsGit ? await detectGitAsync(opts.cwd) : undefined);
}

/** The CI's parallel slot of this job (1-based), e.g. GitLab `parallel: 3` or CircleCI `parallelism: 3`. */
export function detectCiNode(env: Env = process.env): CiNode | undefined {
  return PROVIDERS.find((p) => p.detect(env))?.node?.(env);
}
