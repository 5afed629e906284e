import { credentialsPath } from './paths.js';
import { readJsonFile, removeFile, writeJsonFile } from './jsonFile.js';

/** What `reporter login` stores: the session of one user on one server. */
export interface StoredSession {
  url: string;
  email: string;
  sessionCookie: string;
  expiresAt?: string;
  savedAt: string;
}

export function loadSession(env?: NodeJS.ProcessEnv): StoredSession | undefined {
  const s = readJsonFile<Partial<StoredSession>>(credentialsPath(env));
  if (!s || typeof s.sessionCookie !== 'string' || typeof s.url !== 'string') return undefined;
  if (s.expiresAt && Date.parse(s.expiresAt) < Date.now()) return undefined;
  return s as StoredSession;
}

export function saveSession(session: StoredSession, env?: NodeJS.ProcessEnv): string {
  const path = credentialsPath(env);
  writeJsonFile(path, session, { private: true });
  return path;
}

export function clearSession(env?: NodeJS.ProcessEnv): boolean {
  return removeFile(credentialsPath(env));
}
