import type { User } from '@testreport/contract';
import type { UsersTable } from '../db/schema.js';

export const toUser = (r: UsersTable): User => ({
  id: r.id,
  email: r.email,
  name: r.name,
  avatarUrl: r.avatar_url,
  emailVerified: r.email_verified_at !== null,
  createdAt: r.created_at,
});
