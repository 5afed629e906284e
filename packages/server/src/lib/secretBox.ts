import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

const FORMAT = 'enc1';
const b64 = (b: Buffer) => b.toString('base64url');

interface Key {
  id: string;
  key: Buffer;
}

/** The AES-256 key of one server secret (HKDF-SHA256), and a short id of it that sealed values name. */
function keyOf(serverSecret: string): Key {
  const key = Buffer.from(hkdfSync('sha256', serverSecret, 'testreport', 'testreport secrets at rest v1', 32));
  return { id: createHash('sha256').update(key).digest('hex').slice(0, 8), key };
}

/**
 * Secrets the server must read back (webhook signing secrets) are stored sealed: AES-256-GCM under a
 * key derived from the server secret (`TESTREPORT_SECRET`, or `<data-dir>/secret`), docs/decisions.md §12.
 * A sealed value is `enc1:<key id>:<iv>:<ciphertext>:<tag>`, bound to its row (`context`, e.g. the
 * webhook's id) so a value copied to another row does not open. Values sealed under a previous
 * server secret (`TESTREPORT_SECRET_PREVIOUS`) still open, and `isCurrent` tells which to re-seal.
 */
export function createSecretBox(serverSecret: string, previousSecrets: readonly string[] = []) {
  const [current, ...older] = [serverSecret, ...previousSecrets].map(keyOf);
  const byId = new Map([current!, ...older].map((k) => [k.id, k]));

  return {
    seal(plain: string, context: string): string {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', current!.key, iv);
      cipher.setAAD(Buffer.from(context));
      const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [FORMAT, current!.id, b64(iv), b64(ct), b64(cipher.getAuthTag())].join(':');
    },

    open(sealed: string, context: string): string {
      const [format, id, iv, ct, tag] = sealed.split(':');
      if (format !== FORMAT || !id || iv === undefined || ct === undefined || tag === undefined) throw new Error('not a sealed secret');
      const k = byId.get(id);
      if (!k) throw new Error(`sealed under another server secret (key ${id}); give the old one in TESTREPORT_SECRET_PREVIOUS`);
      const decipher = createDecipheriv('aes-256-gcm', k.key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(context));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
    },

    /** Sealed under the current server secret (a value under a previous one is re-sealed at start). */
    isCurrent: (sealed: string) => sealed.startsWith(`${FORMAT}:${current!.id}:`),
  };
}
export type SecretBox = ReturnType<typeof createSecretBox>;
