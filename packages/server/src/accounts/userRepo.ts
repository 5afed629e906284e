import type { Db } from '../db/database.js';
import type { UsersTable } from '../db/schema.js';

export function createUserRepo(db: Db) {
  return {
    async insert(row: UsersTable) {
      await db.insertInto('users').values(row).execute();
    },
    findByEmail(email: string) {
      return db.selectFrom('users').selectAll().where('email', '=', email.toLowerCase()).executeTakeFirst();
    },
    async any(): Promise<boolean> {
      return (await db.selectFrom('users').select('id').limit(1).executeTakeFirst()) !== undefined;
    },
    findById(id: string) {
      return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    },
    async update(id: string, patch: Partial<Omit<UsersTable, 'id'>>) {
      await db.updateTable('users').set(patch).where('id', '=', id).execute();
    },
  };
}
export type UserRepo = ReturnType<typeof createUserRepo>;
