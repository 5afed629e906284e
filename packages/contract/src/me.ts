import { z } from 'zod';
import { id, timestamp } from './common.js';
import { user } from './auth.js';
import { project } from './projects.js';
import { teamWithRole } from './teams.js';

/** GET /me (docs/decisions.md §5): who the caller is. The reporter uses it to check key rules 3–4. */
export const meUser = z.object({ type: z.literal('user'), user, teams: z.array(teamWithRole) });
export const meApiKey = z.object({
  type: z.literal('apiKey'),
  apiKey: z.object({ id, name: z.string(), projectId: id, expiresAt: timestamp.nullable() }),
  project,
});
export const me = z.discriminatedUnion('type', [meUser, meApiKey]);
export type Me = z.infer<typeof me>;
