import { randomBytes } from 'node:crypto';
import { checkApiKey, KEY_PROBLEM_MESSAGES, maskApiKey, formatApiKey, type ApiKey, type ApiKeyCreated } from '@testreport/contract';
import type { Authz } from '../authz/service.js';
import type { Principal } from '../authz/principal.js';
import type { ServerConfig } from '../config.js';
import type { ApiKeysTable } from '../db/schema.js';
import { sha256Hex } from '../lib/crypto.js';
import { NotFoundError, UnauthorizedError } from '../lib/errors.js';
import { newId } from '../lib/ids.js';
import { bool } from '../db/values.js';
import type { ApiKeyRepo } from './repo.js';

/** lastUsedAt is written at most once a minute per key (docs/decisions.md §10), not on every request. */
const LAST_USED_THROTTLE_MS = 60_000;

const toApiKey = (r: ApiKeysTable): ApiKey => ({
  id: r.id,
  name: r.name,
  projectId: r.project_id,
  maskedKey: maskApiKey(r.last4),
  isActive: bool(r.is_active),
  expiresAt: r.expires_at,
  lastUsedAt: r.last_used_at,
  createdAt: r.created_at,
});

export function createApiKeyService(repo: ApiKeyRepo, authz: Authz, config: ServerConfig) {
  /** Mints a key without authorization checks: for the service itself and first-run bootstrap. */
  async function mint(input: { projectId: string; name: string; expiresAt?: string | null; createdBy?: string | null }): Promise<ApiKeyCreated> {
    const key = formatApiKey(randomBytes(64));
    const now = config.now().toISOString();
    const row: ApiKeysTable = {
      id: newId(),
      project_id: input.projectId,
      name: input.name,
      key_hash: sha256Hex(key),
      last4: key.slice(-4),
      is_active: 1,
      expires_at: input.expiresAt ?? null,
      last_used_at: null,
      created_by: input.createdBy ?? null,
      created_at: now,
      updated_at: now,
    };
    await repo.insert(row);
    return { id: row.id, name: row.name, projectId: row.project_id, key, isActive: true, expiresAt: row.expires_at, createdAt: now };
  }

  return {
    mint,

    /** Resolves an X-API-Key header to a principal, enforcing spec rules 1–4 and updating lastUsedAt. */
    async authenticate(raw: string): Promise<Extract<Principal, { kind: 'apiKey' }>> {
      const problem = checkApiKey(raw);
      if (problem) throw new UnauthorizedError(`Invalid API key: ${KEY_PROBLEM_MESSAGES[problem]}`);
      const row = await repo.findByHash(sha256Hex(raw));
      if (!row) throw new UnauthorizedError('Invalid API key: no such key (it may have been deleted)');
      if (!bool(row.is_active)) throw new UnauthorizedError('This API key has been deactivated');
      const now = config.now();
      if (row.expires_at && row.expires_at <= now.toISOString()) throw new UnauthorizedError('This API key has expired');
      if (!row.last_used_at || now.getTime() - Date.parse(row.last_used_at) >= LAST_USED_THROTTLE_MS) {
        await repo.update(row.id, { last_used_at: now.toISOString() });
      }
      return { kind: 'apiKey', keyId: row.id, projectId: row.project_id, teamId: row.team_id, name: row.name, expiresAt: row.expires_at };
    },

    async list(principal: Principal, projectId: string): Promise<ApiKey[]> {
      await authz.project(principal, projectId, 'apiKeys.list', 'param');
      return (await repo.listByProject(projectId)).map(toApiKey);
    },

    async create(principal: Principal, input: { projectId: string; name: string; expiresAt?: string | null }): Promise<ApiKeyCreated> {
      await authz.project(principal, input.projectId, 'apiKeys.manage', 'param');
      return mint({ ...input, createdBy: principal.kind === 'user' ? principal.userId : null });
    },

    async setActive(principal: Principal, id: string, isActive: boolean) {
      const row = await repo.findById(id);
      if (!row) throw new NotFoundError('API key');
      await authz.project(principal, row.project_id, 'apiKeys.manage', 'resource', 'API key');
      const updatedAt = config.now().toISOString();
      await repo.update(id, { is_active: isActive ? 1 : 0, updated_at: updatedAt });
      return { id, name: row.name, isActive, updatedAt };
    },

    async delete(principal: Principal, id: string) {
      const row = await repo.findById(id);
      if (!row) throw new NotFoundError('API key');
      await authz.project(principal, row.project_id, 'apiKeys.manage', 'resource', 'API key');
      await repo.delete(id);
      return { success: true, message: 'API key deleted' };
    },
  };
}
export type ApiKeyService = ReturnType<typeof createApiKeyService>;
