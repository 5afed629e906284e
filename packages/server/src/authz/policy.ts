import type { TeamRole } from '@testreport/contract';

/**
 * The authorization matrix of docs/decisions.md §6, the one table every service consults.
 * Each action lists the team roles allowed and whether a project API key (own project only) is.
 */
export const POLICY = {
  read: { roles: ['viewer', 'member', 'admin', 'owner'], apiKey: true },
  'members.read': { roles: ['viewer', 'member', 'admin', 'owner'], apiKey: false },
  report: { roles: ['member', 'admin', 'owner'], apiKey: true },
  quarantine: { roles: ['member', 'admin', 'owner'], apiKey: true },
  /** Accepting snapshot actuals as new baselines (docs/decisions.md §13). */
  baselines: { roles: ['member', 'admin', 'owner'], apiKey: true },
  'runs.delete': { roles: ['admin', 'owner'], apiKey: true },
  'projects.create': { roles: ['member', 'admin', 'owner'], apiKey: false },
  'projects.manage': { roles: ['admin', 'owner'], apiKey: false },
  'projects.delete': { roles: ['admin', 'owner'], apiKey: false },
  /** Inviting members and viewers; inviting an admin needs `members.manage`. */
  'members.invite': { roles: ['member', 'admin', 'owner'], apiKey: false },
  /** Invite admins, change roles, remove members, list/revoke invitations. Admins cannot act on owners. */
  'members.manage': { roles: ['admin', 'owner'], apiKey: false },
  'apiKeys.list': { roles: ['admin', 'owner'], apiKey: true },
  'apiKeys.manage': { roles: ['admin', 'owner'], apiKey: false },
  webhooks: { roles: ['admin', 'owner'], apiKey: true },
  'teams.rename': { roles: ['admin', 'owner'], apiKey: false },
  'teams.delete': { roles: ['owner'], apiKey: false },
} as const satisfies Record<string, { roles: readonly TeamRole[]; apiKey: boolean }>;

export type Action = keyof typeof POLICY;

export function roleAllows(role: TeamRole, action: Action): boolean {
  return (POLICY[action].roles as readonly TeamRole[]).includes(role);
}
export function apiKeyAllows(action: Action): boolean {
  return POLICY[action].apiKey;
}
