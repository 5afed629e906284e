import { describe, expect, it } from 'vitest';
import { parseShard, runBody, shardOfReport } from './runBody.js';
import type { ScanResult } from './scan.js';

const scan = (meta: ScanResult['meta'] = {}) => ({ meta }) as ScanResult;
const GITLAB = { GITLAB_CI: 'true', CI_PIPELINE_ID: '77', CI_JOB_NAME: 'junit 2/4', CI_NODE_INDEX: '2', CI_NODE_TOTAL: '4' };

describe('parseShard', () => {
  it('reads i/n', () => {
    expect(parseShard('2/3')).toEqual({ shardCurrent: 2, shardTotal: 3 });
    expect(parseShard(' 1 / 1 ')).toEqual({ shardCurrent: 1, shardTotal: 1 });
  });
  it.each(['0/3', '4/3', '2', '2/', '/3', 'a/b', '1.5/3', '-1/3', ''])('refuses %j naming the flag', (text) => {
    expect(() => parseShard(text)).toThrow(/--shard must be <index>\/<total>/);
  });
});

describe('shardOfReport', () => {
  it('takes --shard first, then the report’s own config.shard, then (JUnit only) the CI’s parallel slot', () => {
    expect(shardOfReport('junit', scan({ shardCurrent: 1, shardTotal: 2 }), { shard: '3/5' }, GITLAB)).toEqual({ shardCurrent: 3, shardTotal: 5 });
    expect(shardOfReport('playwright', scan({ shardCurrent: 1, shardTotal: 2 }), {}, GITLAB)).toEqual({ shardCurrent: 1, shardTotal: 2 });
    expect(shardOfReport('junit', scan(), {}, GITLAB)).toEqual({ shardCurrent: 2, shardTotal: 4 });
    // A Playwright report without config.shard is a whole suite, whatever job uploads it.
    expect(shardOfReport('playwright', scan(), {}, GITLAB)).toBeUndefined();
    expect(shardOfReport('junit', scan(), {}, {})).toBeUndefined();
  });
});

describe('runBody', () => {
  it('joins the CI build: build id, group and shard from the environment, flags on top', () => {
    const body = runBody('p1', 'junit', scan({ frameworkVersion: 'x', duration: 5 }), {}, GITLAB);
    expect(body).toMatchObject({ projectId: 'p1', status: 'running', ciProvider: 'GitLab CI', ciBuildId: '77', group: 'junit', shardCurrent: 2, shardTotal: 4, frameworkVersion: 'x' });
    expect(body).not.toHaveProperty('duration');
    const over = runBody('p1', 'junit', scan(), { buildId: 'b-9', group: 'api', shard: '1/2' }, { ...GITLAB, TESTREPORT_BUILD_ID: 'env-id' });
    expect(over).toMatchObject({ ciBuildId: 'b-9', group: 'api', shardCurrent: 1, shardTotal: 2 });
    expect(runBody('p1', 'junit', scan(), {}, { TESTREPORT_BUILD_ID: 'nightly-3', TESTREPORT_GROUP: 'smoke' })).toMatchObject({ ciBuildId: 'nightly-3', group: 'smoke' });
  });

  it('sends no group or attempt outside a CI build', () => {
    const body = runBody('p1', 'playwright', scan(), { group: 'lonely' }, {});
    expect(body).not.toHaveProperty('group');
    expect(body).not.toHaveProperty('ciBuildId');
  });
});
