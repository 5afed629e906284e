import { describe, expect, it } from 'vitest';
import { detectCi } from './ci.js';

const noGit = { git: false };

describe('detectCi', () => {
  it.each([
    [
      'GitHub Actions (pull request)',
      { GITHUB_ACTIONS: 'true', GITHUB_HEAD_REF: 'feature/x', GITHUB_REF_NAME: '12/merge', GITHUB_SHA: 'abc', GITHUB_RUN_ID: '99', GITHUB_RUN_ATTEMPT: '2', GITHUB_REPOSITORY: 'acme/app', GITHUB_SERVER_URL: 'https://github.com', GITHUB_ACTOR: 'ann' },
      { ciProvider: 'GitHub Actions', branch: 'feature/x', commitSha: 'abc', ciBuildId: '99', ciBuildUrl: 'https://github.com/acme/app/actions/runs/99/attempts/2', commitAuthor: 'ann' },
    ],
    [
      'GitLab CI',
      { GITLAB_CI: 'true', CI_COMMIT_REF_NAME: 'main', CI_COMMIT_SHA: 'def', CI_PIPELINE_ID: '7', CI_PIPELINE_URL: 'https://gitlab.example/p/-/pipelines/7', CI_COMMIT_MESSAGE: 'Fix it', CI_COMMIT_AUTHOR: 'Bo <bo@x>' },
      { ciProvider: 'GitLab CI', branch: 'main', commitSha: 'def', ciBuildId: '7', ciBuildUrl: 'https://gitlab.example/p/-/pipelines/7', commitMessage: 'Fix it', commitAuthor: 'Bo <bo@x>' },
    ],
    [
      'CircleCI',
      { CIRCLECI: 'true', CIRCLE_BRANCH: 'dev', CIRCLE_SHA1: 'c1', CIRCLE_BUILD_NUM: '5', CIRCLE_BUILD_URL: 'https://circleci.com/gh/a/b/5' },
      { ciProvider: 'CircleCI', branch: 'dev', commitSha: 'c1', ciBuildId: '5', ciBuildUrl: 'https://circleci.com/gh/a/b/5' },
    ],
    [
      'Jenkins',
      { JENKINS_URL: 'https://ci/', BUILD_ID: '3', BUILD_NUMBER: '3', GIT_BRANCH: 'origin/release', GIT_COMMIT: 'j1', BUILD_URL: 'https://ci/job/x/3/' },
      { ciProvider: 'Jenkins', branch: 'release', commitSha: 'j1', ciBuildId: '3', ciBuildUrl: 'https://ci/job/x/3/' },
    ],
    [
      'Azure Pipelines',
      { TF_BUILD: 'True', BUILD_SOURCEBRANCH: 'refs/heads/main', BUILD_SOURCEVERSION: 'a1', BUILD_BUILDID: '42', SYSTEM_TEAMFOUNDATIONCOLLECTIONURI: 'https://dev.azure.com/org/', SYSTEM_TEAMPROJECT: 'My Proj', BUILD_SOURCEVERSIONMESSAGE: 'msg', BUILD_REQUESTEDFOR: 'Cy' },
      { ciProvider: 'Azure Pipelines', branch: 'main', commitSha: 'a1', ciBuildId: '42', ciBuildUrl: 'https://dev.azure.com/org/My%20Proj/_build/results?buildId=42', commitMessage: 'msg', commitAuthor: 'Cy' },
    ],
    [
      'Buildkite',
      { BUILDKITE: 'true', BUILDKITE_BRANCH: 'b', BUILDKITE_COMMIT: 'bk', BUILDKITE_BUILD_ID: 'id-1', BUILDKITE_BUILD_URL: 'https://buildkite.com/o/p/builds/1', BUILDKITE_MESSAGE: 'm', BUILDKITE_BUILD_AUTHOR: 'Di' },
      { ciProvider: 'Buildkite', branch: 'b', commitSha: 'bk', ciBuildId: 'id-1', ciBuildUrl: 'https://buildkite.com/o/p/builds/1', commitMessage: 'm', commitAuthor: 'Di' },
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
      { DRONE: 'true', DRONE_BRANCH: 'main', DRONE_SOURCE_BRANCH: 'feat', DRONE_COMMIT_SHA: 'd1', DRONE_BUILD_NUMBER: '4', DRONE_BUILD_LINK: 'https://drone/o/r/4', DRONE_COMMIT_MESSAGE: 'dm', DRONE_COMMIT_AUTHOR: 'ed' },
      { ciProvider: 'Drone', branch: 'feat', commitSha: 'd1', ciBuildId: '4', ciBuildUrl: 'https://drone/o/r/4', commitMessage: 'dm', commitAuthor: 'ed' },
    ],
  ])('reads %s', (_name, env, expected) => {
    expect(detectCi(env, noGit)).toEqual(expected);
  });

  it('returns nothing outside CI without git', () => {
    expect(detectCi({}, noGit)).toEqual({});
  });

  it('fills branch and commit from git outside CI, and tolerates a directory that is no repository', () => {
    const here = detectCi({}, { cwd: process.cwd() });
    expect(here.commitSha).toMatch(/^[0-9a-f]{40}$/);
    expect(detectCi({}, { cwd: '/' })).toEqual({});
  });
});
