import { execFileSync } from 'node:child_process';
import ciInfo from 'ci-info';

/** The CI and VCS fields of a run (named as on the run resource, so they spread into `runs.create`). */
export interface CiMetadata {
  ciProvider?: string;
  ciBuildId?: string;
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

interface Provider {
  name: string;
  detect(env: Env): boolean;
  read(env: Env): Omit<CiMetadata, 'ciProvider'>;
}

// ci-info only names the vendor; branch, sha and build links need each vendor's own variables.
const PROVIDERS: Provider[] = [
  {
    name: 'GitHub Actions',
    detect: (e) => e.GITHUB_ACTIONS === 'true',
    read: (e) => ({
      branch: branchName(e.GITHUB_HEAD_REF) ?? branchName(e.GITHUB_REF_NAME),
      commitSha: clean(e.GITHUB_SHA),
      ciBuildId: clean(e.GITHUB_RUN_ID),
      ciBuildUrl:
        e.GITHUB_RUN_ID && e.GITHUB_REPOSITORY
          ? `${e.GITHUB_SERVER_URL ?? 'https://github.com'}/${e.GITHUB_REPOSITORY}/actions/runs/${e.GITHUB_RUN_ID}` +
            (e.GITHUB_RUN_ATTEMPT && e.GITHUB_RUN_ATTEMPT !== '1' ? `/attempts/${e.GITHUB_RUN_ATTEMPT}` : '')
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
      ciBuildId: clean(e.CI_PIPELINE_ID),
      ciBuildUrl: clean(e.CI_PIPELINE_URL) ?? clean(e.CI_JOB_URL),
    }),
  },
  {
    name: 'CircleCI',
    detect: (e) => !!e.CIRCLECI,
    read: (e) => ({
      branch: branchName(e.CIRCLE_BRANCH),
      commitSha: clean(e.CIRCLE_SHA1),
      commitAuthor: clean(e.CIRCLE_USERNAME),
      ciBuildId: clean(e.CIRCLE_WORKFLOW_ID) ?? clean(e.CIRCLE_BUILD_NUM),
      ciBuildUrl: clean(e.CIRCLE_BUILD_URL),
    }),
  },
  {
    name: 'Jenkins',
    detect: (e) => !!(e.JENKINS_URL && (e.BUILD_ID || e.BUILD_NUMBER)),
    read: (e) => ({
      branch: branchName(e.CHANGE_BRANCH) ?? branchName(e.BRANCH_NAME) ?? branchName(e.GIT_BRANCH),
      commitSha: clean(e.GIT_COMMIT),
      commitAuthor: clean(e.CHANGE_AUTHOR) ?? clean(e.GIT_AUTHOR_NAME),
      ciBuildId: clean(e.BUILD_NUMBER) ?? clean(e.BUILD_ID),
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
      ciBuildId: clean(e.BUILD_BUILDID),
      ciBuildUrl:
        e.SYSTEM_TEAMFOUNDATIONCOLLECTIONURI && e.SYSTEM_TEAMPROJECT && e.BUILD_BUILDID
          ? `${e.SYSTEM_TEAMFOUNDATIONCOLLECTIONURI.replace(/\/?$/, '/')}${encodeURIComponent(e.SYSTEM_TEAMPROJECT)}/_build/results?buildId=${e.BUILD_BUILDID}`
          : undefined,
    }),
  },
  {
    name: 'Buildkite',
    detect: (e) => !!e.BUILDKITE,
    read: (e) => ({
      branch: branchName(e.BUILDKITE_BRANCH),
      commitSha: clean(e.BUILDKITE_COMMIT),
      commitMessage: clean(e.BUILDKITE_MESSAGE),
      commitAuthor: clean(e.BUILDKITE_BUILD_AUTHOR),
      ciBuildId: clean(e.BUILDKITE_BUILD_ID) ?? clean(e.BUILDKITE_BUILD_NUMBER),
      ciBuildUrl: clean(e.BUILDKITE_BUILD_URL),
    }),
  },
  {
    name: 'Bitbucket Pipelines',
    detect: (e) => !!e.BITBUCKET_COMMIT,
    read: (e) => ({
      branch: branchName(e.BITBUCKET_BRANCH),
      commitSha: clean(e.BITBUCKET_COMMIT),
      ciBuildId: clean(e.BITBUCKET_BUILD_NUMBER),
      ciBuildUrl:
        e.BITBUCKET_GIT_HTTP_ORIGIN && e.BITBUCKET_BUILD_NUMBER
          ? `${e.BITBUCKET_GIT_HTTP_ORIGIN}/addon/pipelines/home#!/results/${e.BITBUCKET_BUILD_NUMBER}`
          : undefined,
    }),
  },
  {
    name: 'Travis CI',
    detect: (e) => !!e.TRAVIS,
    read: (e) => ({
      branch: branchName(e.TRAVIS_PULL_REQUEST_BRANCH) ?? branchName(e.TRAVIS_BRANCH),
      commitSha: clean(e.TRAVIS_PULL_REQUEST_SHA) ?? clean(e.TRAVIS_COMMIT),
      commitMessage: clean(e.TRAVIS_COMMIT_MESSAGE),
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
      ciBuildId: clean(e.DRONE_BUILD_NUMBER),
      ciBuildUrl: clean(e.DRONE_BUILD_LINK),
    }),
  },
];

function git(args: string[], cwd?: string): string | undefined {
  try {
    const out = execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 3_000 });
    return clean(out);
  } catch {
    // No git, not a repository, or a shallow checkout without the commit: the fields stay empty.
    return undefined;
  }
}

/** Branch, sha, subject and author of HEAD from the local checkout. */
export function detectGit(cwd?: string): Pick<CiMetadata, 'branch' | 'commitSha' | 'commitMessage' | 'commitAuthor'> {
  const log = git(['log', '-1', '--format=%H%n%an%n%s'], cwd);
  const [commitSha, commitAuthor, ...subject] = log ? log.split('\n') : [];
  const branch = git(['rev-parse', '--abbrev-ref', 'HEAD'], cwd);
  return {
    branch: branch && branch !== 'HEAD' ? branch : undefined,
    commitSha: clean(commitSha),
    commitAuthor: clean(commitAuthor),
    commitMessage: clean(subject.join('\n')),
  };
}

export interface DetectCiOptions {
  /** Fall back to the local git checkout for fields the CI does not provide (default true). */
  git?: boolean;
  cwd?: string;
}

/**
 * CI provider, build id/URL, branch and commit of the current process. Known CI providers are read
 * from their own variables; any other CI that ci-info recognises is named; git fills the gaps.
 */
export function detectCi(env: Env = process.env, opts: DetectCiOptions = {}): CiMetadata {
  const provider = PROVIDERS.find((p) => p.detect(env));
  const out: CiMetadata = {};
  if (provider) Object.assign(out, { ciProvider: provider.name }, provider.read(env));
  else if (env === process.env && ciInfo.isCI) out.ciProvider = ciInfo.name ?? 'CI';
  if (opts.git !== false && (!out.branch || !out.commitSha || !out.commitMessage || !out.commitAuthor)) {
    const g = detectGit(opts.cwd);
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
