import type { Db } from '../db/database.js';
import type { ApiKeysTable } from '../db/schema.js';
import { prepared } from '../db/prepared.js';

/**
 * Every API request's lookup: compiled once (db/prepared.ts). With its project's team, so a request
 * on the key's own project needs no second statement to authorize it (authz/service.ts).
 */
const byHash = prepared((db, v: Record<'keyHash', string>) =>
  db.selectFrom('api_keys as k').innerJoin('projects as p', 'p.id', 'k.project_id').selectAll('k').select('p.team_id as team_id').where('k.key_hash', '=', v.keyHash),
);

export function createApiKeyRepo(db: Db) {
  return {
    async insert(row: ApiKeysTable) {
      await db.insertInto('api_keys').values(row).execute();
    },
    async findByHash(keyHash: string) {
      return (await byHash(db, { keyHash })).rows[0];
    },
    findById(id: string) {
      return db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
    },
    listByProject(projectId: string) {
      return db.selectFrom('api_keys').selectAll().where('project_id', '=', projectId).orderBy('id', 'desc').execute();
    },
    async update(id: string, patch: Partial<Pick<ApiKeysTable, 'is_active' | 'updated_at' | 'last_used_at'>>) {
      await db.updateTable('api_keys').set(patch).where('id', '=', id).execute();
    },
    async delete(id: string) {
      await db.deleteFrom('api_keys').where('id', '=', id).execute();
    },
  };
}
export type ApiKeyRepo = ReturnType<typeof createApiKeyRepo>;
