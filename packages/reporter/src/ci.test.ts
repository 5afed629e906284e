import { describe, expect, it } from 'vitest';
import { detectCi, detectCiAsync, detectCiNode } from './ci.js';
import { shardOf, withBuildIdentity } from './ciBuild.js';

const noGit = { git: false };

describe('detectCi', () => {
  it.each([
    [
      'GitHub Actions (pull request)',
      { GITHUB_ACTIONS: 'true', GITHUB_HEAD_REF: 'feature/x', GITHUB_REF_NAME: '12/merge', GITHUB_SHA: 'abc', GITHUB_RUN_ID: '99', GITHUB_RUN_ATTEMPT: '2', GITHUB_REPOSITORY: 'acme/app', GITHUB_SERVER_URL: 'https://github.com', GITHUB_ACTOR: 'ann', GITHUB_JOB: 'e2e' },
      { ciProvider: 'GitHub Actions', branch: 'feature/x', commitSha: 'abc', ciBuildId: '99', attempt: 2, group: 'e2e', ciBuildUrl: 'https://github.com/acme/app/actions/runs/99', commitAuthor: 'ann' },
    ],
    [
      'GitLab CI',
      { GITLAB_CI: 'true', CI_COMMIT_REF_NAME: 'main', CI_COMMIT_SHA: 'def', CI_PIPELINE_ID: '7', CI_PIPELINE_URL: 'https://gitlab.example/p/-/pipelines/7', CI_COMMIT_MESSAGE: 'Fix it', CI_COMMIT_AUTHOR: 'Bo <bo@x>', CI_JOB_NAME: 'e2e 2/3', CI_NODE_INDEX: '2', CI_NODE_TOTAL: '3' },
      { ciProvider: 'GitLab CI', branch: 'main', commitSha: 'def', ciBuildId: '7', group: 'e2e', ciBuildUrl: 'https://gitlab.example/p/-/pipelines/7', commitMessage: 'Fix it', commitAuthor: 'Bo <bo@x>' },
    ],
    [
      'CircleCI',
      { CIRCLECI: 'true', CIRCLE_BRANCH: 'dev', CIRCLE_SHA1: 'c1', CIRCLE_BUILD_NUM: '5', CIRCLE_BUILD_URL: 'https://circleci.com/gh/a/b/5', CIRCLE_WORKFLOW_ID: 'wf-rerun', CIRCLE_WORKFLOW_WORKSPACE_ID: 'wf-first', CIRCLE_JOB: 'e2e' },
      { ciProvider: 'CircleCI', branch: 'dev', commitSha: 'c1', ciBuildId: 'wf-first', group: 'e2e', ciBuildUrl: 'https://circleci.com/gh/a/b/5' },
    ],
    [
      'Jenkins',
      { JENKINS_URL: 'https://ci/', BUILD_ID: '3', BUILD_NUMBER: '3', BUILD_TAG: 'jenkins-x-3', GIT_BRANCH: 'origin/release', GIT_COMMIT: 'j1', BUILD_URL: 'https://ci/job/x/3/' },
      { ciProvider: 'Jenkins', branch: 'release', commitSha: 'j1', ciBuildId: 'jenkins-x-3', ciBuildUrl: 'https://ci/job/x/3/' },
    ],
    [
      'Azure Pipelines',
      { TF_BUILD: 'True', BUILD_SOURCEBRANCH: 'refs/heads/main', BUILD_SOURCEVERSION: 'a1', BUILD_BUILDID: '42', SYSTEM_TEAMFOUNDATIONCOLLECTIONURI: 'https://dev.azure.com/org/', SYSTEM_TEAMPROJECT: 'My Proj', BUILD_SOURCEVERSIONMESSAGE: 'msg', BUILD_REQUESTEDFOR: 'Cy', SYSTEM_JOBATTEMPT: '3', SYSTEM_STAGENAME: 'Test', SYSTEM_PHASENAME: 'e2e' },
      { ciProvider: 'Azure Pipelines', branch: 'main', commitSha: 'a1', ciBuildId: '42', attempt: 3, group: 'Test.e2e', ciBuildUrl: 'https://dev.azure.com/org/My%20Proj/_build/results?buildId=42', commitMessage: 'msg', commitAuthor: 'Cy' },
    ],
    [
      'Buildkite',
      { BUILDKITE: 'true', BUILDKITE_BRANCH: 'b', BUILDKITE_COMMIT: 'bk', BUILDKITE_BUILD_ID: 'id-1', BUILDKITE_BUILD_URL: 'https://buildkite.com/o/p/builds/1', BUILDKITE_MESSAGE: 'm', BUILDKITE_BUILD_AUTHOR: 'Di', BUILDKITE_RETRY_COUNT: '0', BUILDKITE_STEP_ID: 'step-1' },
      { ciProvider: 'Buildkite', branch: 'b', commitSha: 'bk', ciBuildId: 'id-1', attempt: 1, group: 'step-1', ciBuildUrl: 'https://buildkite.com/o/p/builds/1', commitMessage: 'm', commitAuthor: 'Di' },
    ],
    [
      'Bitbucket Pipelines',
      { BITBUCKET_COMMIT: 'bb', BITBUCKET_BRANCH: 'topic', BITBUCKET_BUILD_NUMBER: '8', BITBUCKET_GIT_HTTP_ORIGIN: 'http://bitbucket.org/team/repo' },
      { ciProvider: 'Bitbucket Pipelines', branch: 'topic', commitSha: 'bb', ciBuildId: '8', ciBuildUrl: 'http://bitbucket.org/team/repo/addon/pipelines/home#!/results/8' },
    ],
    [
      'Travis CI',
      { TRAVIS: 'true', TRAVIS_BRANCH: 'main', TRAVIS_PULL_REQUEST_BRANCH: '', TRAVIS_COMMIT: 't1', TRAVIS_BUILD_ID: '11', TRAVIS_BUILD_WEB_URL: 'https://travis-ci.com/o/r/builds/11', TRAVIS_COMMIT_MESSAGE: 'tm' },
      { ciProvider: 'Travis CI', branch: 'main', commitSha: 't1', ciBuildId: '11', ciBuildUrl: 'https://travis-ci.com/o/r/builds/11', commitMessage: 'tm' },
    ],
    ['TeamCity', { TEAMCITY_VERSION: '2024.1', BUILD_VCS_NUMBER: 'tc', BUILD_NUMBER: '100' }, { ciProvider: 'TeamCity', commitSha: 'tc', ciBuildId: '100' }],
    [
      'Drone',
      { DRONE: 'true', DRONE_BRANCH: 'main', DRONE_SOURCE_BRANCH: 'feat', DRONE_COMMIT_SHA: 'd1', DRONE_BUILD_NUMBER: '4', DRONE_BUILD_LINK: 'https://drone/o/r/4', DRONE_COMMIT_MESSAGE: 'dm', DRONE_COMMIT_AUTHOR: 'ed', DRONE_STAGE_NAME: 'e2e' },
      { ciProvider: 'Drone', branch: 'feat', commitSha: 'd1', ciBuildId: '4', group: 'e2e', ciBuildUrl: 'https://drone/o/r/4', commitMessage: 'dm', commitAuthor: 'ed' },
    ],
  ])('reads %s', (_name, env, expected) => {
    expect(detectCi(env, noGit)).toEqual(expected);
  });

  it('gives every job of a GitHub matrix the same build id and group, and a re-run the next attempt', () => {
    const job = (attempt: string) => ({ GITHUB_ACTIONS: 'true', GITHUB_RUN_ID: '123', GITHUB_RUN_ATTEMPT: attempt, GITHUB_JOB: 'test', GITHUB_REPOSITORY: 'a/b' });
    const first = detectCi(job('1'), noGit);
    const rerun = detectCi(job('2'), noGit);
    expect([first.ciBuildId, first.group, first.attempt]).toEqual(['123', 'test', 1]);
    expect([rerun.ciBuildId, rerun.group, rerun.attempt]).toEqual(['123', 'test', 2]);
    expect(rerun.ciBuildUrl).toBe(first.ciBuildUrl);
  });

  it('keeps a GitLab parallel:matrix job its own group, and its jobs are no shards', () => {
    const env = { GITLAB_CI: 'true', CI_PIPELINE_ID: '7', CI_JOB_NAME: 'e2e: [firefox]', CI_NODE_INDEX: '2', CI_NODE_TOTAL: '3' };
    expect(detectCi(env, noGit).group).toBe('e2e: [firefox]');
    expect(detectCiNode(env)).toBeUndefined();
  });

  it('reads the parallel slot of GitLab, CircleCI, Buildkite, Bitbucket and Azure jobs as a 1-based shard', () => {
    expect(detectCiNode({ GITLAB_CI: 'true', CI_JOB_NAME: 'e2e 2/3', CI_NODE_INDEX: '2', CI_NODE_TOTAL: '3' })).toEqual({ shardCurrent: 2, shardTotal: 3 });
    expect(detectCiNode({ CIRCLECI: 'true', CIRCLE_NODE_INDEX: '0', CIRCLE_NODE_TOTAL: '4' })).toEqual({ shardCurrent: 1, shardTotal: 4 });
    expect(detectCiNode({ BUILDKITE: 'true', BUILDKITE_PARALLEL_JOB: '3', BUILDKITE_PARALLEL_JOB_COUNT: '4' })).toEqual({ shardCurrent: 4, shardTotal: 4 });
    expect(detectCiNode({ BITBUCKET_COMMIT: 'x', BITBUCKET_PARALLEL_STEP: '1', BITBUCKET_PARALLEL_STEP_COUNT: '2' })).toEqual({ shardCurrent: 2, shardTotal: 2 });
    expect(detectCiNode({ TF_BUILD: 'True', SYSTEM_JOBPOSITIONINPHASE: '2', SYSTEM_TOTALJOBSINPHASE: '2' })).toEqual({ shardCurrent: 2, shardTotal: 2 });
    // Nonsense (an index past the total, not a number) is no shard at all.
    expect(detectCiNode({ CIRCLECI: 'true', CIRCLE_NODE_INDEX: '4', CIRCLE_NODE_TOTAL: '4' })).toBeUndefined();
    expect(detectCiNode({ CIRCLECI: 'true', CIRCLE_NODE_INDEX: 'x', CIRCLE_NODE_TOTAL: '4' })).toBeUndefined();
    expect(detectCiNode({ GITHUB_ACTIONS: 'true' })).toBeUndefined();
  });

  it('lets the user name the build and group, and drops group and attempt when there is no build to join', () => {
    const gh = detectCi({ GITHUB_ACTIONS: 'true', GITHUB_RUN_ID: '5', GITHUB_RUN_ATTEMPT: '2', GITHUB_JOB: 'e2e' }, noGit);
    expect(withBuildIdentity(gh, {}, { TESTREPORT_BUILD_ID: 'nightly-42', TESTREPORT_GROUP: 'firefox' })).toMatchObject({ ciBuildId: 'nightly-42', group: 'firefox', attempt: 2 });
    expect(withBuildIdentity(gh, { buildId: 'flag', group: 'g' }, { TESTREPORT_BUILD_ID: 'env' })).toMatchObject({ ciBuildId: 'flag', group: 'g' });
    expect(withBuildIdentity({}, { group: 'lonely' }, {})).toEqual({});
    expect(withBuildIdentity({}, {}, { TESTREPORT_BUILD_ID: ' local-1 ' })).toEqual({ ciBuildId: 'local-1' });
  });

  it('says which shard a finish ends only for runs of a CI build', () => {
    expect(shardOf({ ciBuildId: '1', shardCurrent: 2, attempt: 3 })).toEqual({ shardCurrent: 2, attempt: 3 });
    expect(shardOf({ ciBuildId: '1' })).toEqual({ shardCurrent: 1 });
    expect(shardOf({ shardCurrent: 2 })).toEqual({});
  });

  it('returns nothing outside CI without git', () => {
    expect(detectCi({}, noGit)).toEqual({});
  });

  it('fills branch and commit from git outside CI, and tolerates a directory that is no repository', () => {
    const here = detectCi({}, { cwd: process.cwd() });
    expect(here.commitSha).toMatch(/^[0-9a-f]{40}$/);
    expect(detectCi({}, { cwd: '/' })).toEqual({});
  });

  it('reads the same facts without blocking, as the reporter does in Playwright’s process', async () => {
    const here = await detectCiAsync({}, { cwd: process.cwd() });
    expect(here).toEqual(detectCi({}, { cwd: process.cwd() }));
    expect(here.commitSha).toMatch(/^[0-9a-f]{40}$/);
    expect(await detectCiAsync({}, { cwd: '/' })).toEqual({});
    // A CI's own commit wins; git's subject and author stand in only for that same commit.
    const other = await detectCiAsync({ GITHUB_ACTIONS: 'true', GITHUB_SHA: 'abc', GITHUB_REF_NAME: 'main' }, { cwd: process.cwd() });
    expect(other).toEqual({ ciProvider: 'GitHub Actions', commitSha: 'abc', branch: 'main' });
  });
});
