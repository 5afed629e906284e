import { z } from 'zod';
import { id, name, successResponse, timestamp, timestampInput } from './common.js';

export const apiKeyListQuery = z.object({ projectId: id });
export const apiKeyCreate = z.object({ projectId: id, name, expiresAt: timestampInput.nullable().optional() });
export type ApiKeyCreate = z.input<typeof apiKeyCreate>;
export const apiKeyUpdate = z.object({ isActive: z.boolean() });

export const apiKey = z.object({
  id,
  name: z.string(),
  projectId: id,
  maskedKey: z.string(),
  isActive: z.boolean(),
  expiresAt: timestamp.nullable(),
  lastUsedAt: timestamp.nullable(),
  createdAt: timestamp,
});
export type ApiKey = z.infer<typeof apiKey>;
export const apiKeyList = z.object({ data: z.array(apiKey) });
export const apiKeyCreated = z.object({
  id,
  name: z.string(),
  projectId: id,
  key: z.string(),
  isActive: z.boolean(),
  expiresAt: timestamp.nullable(),
  createdAt: timestamp,
});
export type ApiKeyCreated = z.infer<typeof apiKeyCreated>;
export const apiKeyUpdated = z.object({ id, name: z.string(), isActive: z.boolean(), updatedAt: timestamp });
export const apiKeyDeleted = successResponse;
