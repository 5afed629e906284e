import { TEAM_ROLES, type TeamRole } from '@testreport/contract';

/** A `team:role` value of the team claim: the team by id or name, and a role of docs/decisions.md §6. */
export interface ClaimedMembership {
  team: string;
  role: TeamRole;
}

/**
 * The memberships a claim value lists. Accepts a string or an array of strings; values that are not
 * `team:role` with a known role are returned in `ignored` (logged, never fatal: a provider's groups
 * claim usually holds other groups too). A leading `/` is dropped (Keycloak's full group paths). When
 * a team is listed twice the stronger role wins.
 */
export function parseTeamClaim(value: unknown): { memberships: ClaimedMembership[]; ignored: string[] } {
  const values = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
  const byTeam = new Map<string, ClaimedMembership>();
  const ignored: string[] = [];
  for (const raw of values) {
    if (typeof raw !== 'string') continue;
    const v = raw.trim().replace(/^\//, '');
    const at = v.lastIndexOf(':');
    const team = v.slice(0, at).trim();
    const role = v.slice(at + 1).trim().toLowerCase() as TeamRole;
    if (at <= 0 || !team || !TEAM_ROLES.includes(role)) {
      ignored.push(raw);
      continue;
    }
    const key = team.toLowerCase();
    const seen = byTeam.get(key);
    if (!seen || TEAM_ROLES.indexOf(role) < TEAM_ROLES.indexOf(seen.role)) byTeam.set(key, { team, role });
  }
  return { memberships: [...byTeam.values()], ignored };
}
