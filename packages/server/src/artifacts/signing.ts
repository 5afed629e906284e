import { createHmac } from 'node:crypto';
import { storageUrlOf, type ServerConfig } from '../config.js';
import { safeEqual } from '../lib/crypto.js';

// The purpose prefix keeps an artifact token from ever verifying as any other HMAC the server makes
// with the same secret.
const tokenFor = (secret: string, artifactId: string, expires: number) =>
  createHmac('sha256', secret).update(`artifact-download:${artifactId}:${expires}`).digest('base64url');

/** A download URL on {storage_url} that works until `expiresAt` (config.signedUrlTtlSeconds from now). */
export function signArtifactUrl(config: ServerConfig, artifactId: string): { url: string; expiresAt: string } {
  const expires = Math.floor(config.now().getTime() / 1000) + config.signedUrlTtlSeconds;
  const token = tokenFor(config.secret, artifactId, expires);
  return {
    url: `${storageUrlOf(config)}/${encodeURIComponent(artifactId)}?expires=${expires}&token=${token}`,
    expiresAt: new Date(expires * 1000).toISOString(),
  };
}

export type SignatureProblem = 'missing' | 'expired' | 'invalid';

/** Checks a download URL's query; constant-time on the token so it cannot be guessed byte by byte. */
export function checkArtifactSignature(config: ServerConfig, artifactId: string, expiresRaw: string | undefined, token: string | undefined): SignatureProblem | null {
  if (!expiresRaw || !token) return 'missing';
  if (!/^\d{1,12}$/.test(expiresRaw)) return 'invalid';
  const expires = Number(expiresRaw);
  if (!safeEqual(token, tokenFor(config.secret, artifactId, expires))) return 'invalid';
  if (expires * 1000 <= config.now().getTime()) return 'expired';
  return null;
}
