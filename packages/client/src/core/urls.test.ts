import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TestReportClient } from '../index.js';
import { VERSION } from '../version.js';
import { parseRetryAfter } from './errors.js';
import { fillPath, resolveUrls, toQueryString } from './urls.js';

describe('addresses (docs/decisions.md §1)', () => {
  it('derives {base_url} from {app_url} and ignores trailing slashes', () => {
    expect(resolveUrls('https://r.example.com/')).toEqual({ appUrl: 'https://r.example.com', baseUrl: 'https://r.example.com/api/v1' });
    expect(resolveUrls('https://r.example.com/sub/', 'https://api.example.com/v1/')).toEqual({ appUrl: 'https://r.example.com/sub', baseUrl: 'https://api.example.com/v1' });
  });

  it('defaults to TESTREPORT_URL, then http://localhost:4000', () => {
    const before = process.env.TESTREPORT_URL;
    try {
      delete process.env.TESTREPORT_URL;
      expect(new TestReportClient({ apiKey: '' }).baseUrl).toBe('http://localhost:4000/api/v1');
      process.env.TESTREPORT_URL = 'https://ci.example.com/';
      expect(new TestReportClient({ apiKey: '' }).appUrl).toBe('https://ci.example.com');
    } finally {
      if (before === undefined) delete process.env.TESTREPORT_URL;
      else process.env.TESTREPORT_URL = before;
    }
  });

  it('refuses addresses that are not absolute http(s) URLs', () => {
    expect(() => resolveUrls('reports.example.com')).toThrow(/not an absolute URL/);
    expect(() => resolveUrls('ftp://x.example.com')).toThrow(/http/);
    expect(() => resolveUrls('https://x.example.com/?a=1')).toThrow(/query/);
  });

  it('fills path parameters and builds query strings without undefined values', () => {
    expect(fillPath('/runs/:id', { id: 'a b' })).toBe('/runs/a%20b');
    expect(() => fillPath('/runs/:id', {})).toThrow(/Missing path parameter "id"/);
    expect(toQueryString({ projectId: 'p', status: undefined, quarantined: true, limit: 5 })).toBe('?projectId=p&quarantined=true&limit=5');
    expect(toQueryString({})).toBe('');
  });
});

describe('Retry-After', () => {
  it('reads seconds and HTTP dates', () => {
    expect(parseRetryAfter('7')).toBe(7);
    expect(parseRetryAfter(new Date(Date.UTC(2030, 0, 1, 0, 0, 30)).toUTCString(), Date.UTC(2030, 0, 1, 0, 0, 0))).toBe(30);
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
  });
});

describe('version', () => {
  it('matches package.json (it goes into the User-Agent)', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(VERSION).toBe(pkg.version);
  });
});
