import type { CiMetadata } from './ci.js';

type Env = Record<string, string | undefined>;

const clean = (v: string | undefined): string | undefined => {
  const t = v?.trim();
  return t ? t : undefined;
};

// One run per CI build (docs/ci-builds.md): the user's say over the detected identity, and what a
// shard's finish tells the server.

/** What the user says about the build (option or flag, else TESTREPORT_BUILD_ID / TESTREPORT_GROUP). */
export interface BuildOverrides {
  buildId?: string;
  group?: string;
}

/**
 * The detected CI fields with the user's build id and group on top. Without a build id there is
 * nothing to join, so group and attempt are dropped (the server would ignore them anyway).
 */
export function withBuildIdentity(ci: CiMetadata, o: BuildOverrides, env: Env = process.env): CiMetadata {
  const out: CiMetadata = { ...ci };
  const buildId = clean(o.buildId) ?? clean(env.TESTREPORT_BUILD_ID);
  const group = clean(o.group) ?? clean(env.TESTREPORT_GROUP);
  if (buildId) out.ciBuildId = buildId;
  if (group) out.group = group;
  if (out.group) out.group = out.group.slice(0, 200);
  if (!out.ciBuildId) {
    delete out.group;
    delete out.attempt;
  }
  return out;
}

/**
 * What a finishing PATCH says about its shard, so the server finishes that shard of a joined run
 * (and not the whole run). Nothing for a run outside a CI build.
 */
export function shardOf(run: Pick<CiMetadata, 'ciBuildId' | 'attempt'> & { shardCurrent?: number }): { shardCurrent?: number; attempt?: number } {
  if (!run.ciBuildId) return {};
  return { shardCurrent: run.shardCurrent ?? 1, ...(run.attempt ? { attempt: run.attempt } : {}) };
}
