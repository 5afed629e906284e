import type { TeamRole } from '@testreport/contract';
import type { Deps } from '../deps.js';
import { inTransaction } from '../db/transaction.js';
import type { MemberService } from '../members/service.js';
import { createSsoRepo } from './repo.js';
import { parseTeamClaim } from './teamClaim.js';

/**
 * Applies the team claim at each sign-in: listed teams are joined or their role changed; with
 * `manageTeams`, teams the claim granted earlier and no longer lists are left. Memberships made by
 * hand are never removed, and a team's last owner is never demoted or removed (docs/decisions.md §6). Every
 * change is logged as an `audit:` line.
 */
export function createTeamSync(deps: Deps, members: MemberService['internal']) {
  const { db, config, logger } = deps;
  const repo = createSsoRepo(db);
  const audit = (action: string, fields: Record<string, unknown>) => logger.info(`audit: sso ${action}`, fields);

  async function join(userId: string, teamId: string, role: TeamRole, now: string) {
    const r = await members.setRole(teamId, userId, role);
    if (r.change === 'added') audit('membership added', { userId, teamId, role });
    if (r.change === 'changed') audit('membership role changed', { userId, teamId, from: r.from, to: role });
    if (r.change === 'kept-last-owner') logger.warn('sso: the team claim would demote the last owner of a team; left as owner', { userId, teamId, role });
    await repo.addGrant(userId, teamId, now);
  }

  async function leave(userId: string, teamId: string) {
    const r = await members.remove(teamId, userId);
    if (r.change === 'kept-last-owner') {
      logger.warn('sso: the team claim no longer lists a team whose last owner this user is; membership kept', { userId, teamId });
      return;
    }
    if (r.change === 'removed') audit('membership removed', { userId, teamId, role: r.role });
    await repo.deleteGrant(userId, teamId);
  }

  return async function applyTeamClaim(userId: string, claimValue: unknown, manageTeams: boolean) {
    const { memberships, ignored } = parseTeamClaim(claimValue);
    if (ignored.length) logger.debug('sso: team claim values that are not team:role were ignored', { userId, ignored });
    const now = config.now().toISOString();
    await inTransaction(db, async () => {
      const listed = new Set<string>();
      for (const m of memberships) {
        const teams = await repo.findTeams(m.team);
        if (teams.length !== 1) {
          logger.warn(`sso: the team claim names ${teams.length === 0 ? 'no existing team' : 'several teams'}; skipped`, { userId, team: m.team });
          continue;
        }
        listed.add(teams[0]!.id);
        await join(userId, teams[0]!.id, m.role, now);
      }
      if (!manageTeams) return;
      for (const grant of await repo.listGrants(userId)) if (!listed.has(grant.team_id)) await leave(userId, grant.team_id);
    });
  };
}
