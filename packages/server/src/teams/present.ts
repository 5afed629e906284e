import type { ResponseOf } from '@testreport/contract';

export type TeamWithRole = ResponseOf<'teams.list'>['data'][number];

export const toTeamWithRole = (t: { id: string; name: string; created_at: string; role: string }): TeamWithRole => ({
  id: t.id,
  name: t.name,
  createdAt: t.created_at,
  role: t.role as TeamWithRole['role'],
});
