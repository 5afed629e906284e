import { hostname, release, type } from 'node:os';
import type { FullConfig, Suite } from '@playwright/test/reporter';
import type { CiMetadata } from './ci.js';
import { withBuildIdentity } from './ciBuild.js';
import { codeownersFields } from './codeowners.js';
import type { ResolvedOptions } from './options.js';
import type { RunBody } from './spool.js';

interface ProjectUse {
  browserName?: string;
  defaultBrowserType?: string;
  viewport?: { width: number; height: number } | null;
}

const regexStrings = (g: RegExp | RegExp[] | undefined): string[] =>
  (Array.isArray(g) ? g : g ? [g] : []).map((r) => r.source).filter((s) => s !== '.*' && s !== '');

/** Everything the run resource can hold about this invocation of Playwright. */
export function runBody(config: FullConfig, root: Suite, opts: ResolvedOptions, ci: CiMetadata): RunBody {
  // Only projects that have tests in this run say which browsers ran.
  const active = new Set(root.suites.map((s) => s.project()?.name));
  const projects = config.projects.filter((p) => active.has(p.name));
  const uses = (projects.length ? projects : config.projects).map((p) => p.use as ProjectUse);
  const browsers = [...new Set(uses.map((u) => u.browserName ?? u.defaultBrowserType ?? 'chromium'))];
  const vp = uses.map((u) => u.viewport).find((v) => v && v.width > 0 && v.height > 0);
  const grep = [...regexStrings(config.grep), ...regexStrings(config.grepInvert ?? undefined).map((s) => `!${s}`)];
  return {
    // Options were resolved from the environment already: the empty env keeps them the only source.
    ...withBuildIdentity(ci, { buildId: opts.buildId, group: opts.group }, {}),
    frameworkVersion: config.version,
    workers: Math.max(1, config.workers),
    ...(config.shard ? { shardCurrent: config.shard.current, shardTotal: config.shard.total } : {}),
    browser: browsers.join(', '),
    os: `${type()} ${release()} (${process.arch})`,
    ...(vp ? { viewport: `${Math.round(vp.width)}x${Math.round(vp.height)}` } : {}),
    hostname: hostname(),
    ...(opts.runTitle ? { runTitle: opts.runTitle } : {}),
    ...(opts.tags.length ? { tags: opts.tags } : {}),
    ...(grep.length ? { grepPatterns: grep } : {}),
    // File paths of results are relative to rootDir: the server resolves their owners from there.
    ...codeownersFields(config.rootDir),
  };
}
