/**
 * The API key shape of docs/decisions.md §10: `trk_live_` + 32 base62 characters + a 6-character base62
 * CRC32 of everything before it. Shared by the server (which mints keys) and every client (which
 * refuses a mistyped, truncated or placeholder key before it touches the network).
 */
export const KEY_PREFIX = 'trk';
export const KEY_MODES = ['live'] as const;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const SHAPE = /^trk_(live)_([0-9A-Za-z]{38})$/;

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

export function crc32(text: string): number {
  let crc = 0xffffffff;
  for (const byte of new TextEncoder().encode(text)) crc = CRC_TABLE[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

export function base62(value: number, width: number): string {
  let out = '';
  let v = value;
  while (v > 0) {
    out = BASE62[v % 62] + out;
    v = Math.floor(v / 62);
  }
  return out.padStart(width, '0').slice(-width);
}

export function checksumOf(body: string): string {
  return base62(crc32(body), CHECKSUM_LENGTH);
}

/** Builds a key from random bytes supplied by the caller (the server uses node:crypto). */
export function formatApiKey(randomBytes: Uint8Array, mode: (typeof KEY_MODES)[number] = 'live'): string {
  let random = '';
  for (let i = 0; random.length < RANDOM_LENGTH; i++) {
    const b = randomBytes[i % randomBytes.length];
    // Rejection sampling keeps base62 uniform: 248 = 4 × 62.
    if (b < 248) random += BASE62[b % 62];
    if (i > randomBytes.length * 4) throw new Error('not enough random bytes');
  }
  const body = `${KEY_PREFIX}_${mode}_${random}`;
  return body + checksumOf(body);
}

export function maskApiKey(last4: string): string {
  return `${KEY_PREFIX}_live_${'*'.repeat(24)}${last4}`;
}

export const PLACEHOLDER_KEYS = ['your-api-key', 'test-key', 'api-key', 'changeme', 'your_api_key', 'apikey', 'api_key'];

export type KeyProblem =
  | 'missing'
  | 'whitespace'
  | 'too_short'
  | 'placeholder'
  | 'bad_shape'
  | 'bad_checksum';

export const KEY_PROBLEM_MESSAGES: Record<KeyProblem, string> = {
  missing: 'No API key was given. Set TESTREPORT_API_KEY or pass apiKey.',
  whitespace:
    'The API key contains whitespace or a line break, usually a trailing newline copied into the CI secret. Remove it and save the secret again.',
  too_short: 'The API key is shorter than 16 characters, so it cannot be a testreport key. Was it truncated?',
  placeholder: 'The API key is a placeholder value (like "your-api-key"). Create a real key with `reporter keys create`.',
  bad_shape: 'The API key does not look like a testreport key (expected trk_live_ followed by 38 letters and digits).',
  bad_checksum: 'The API key has a bad checksum: it was mistyped or truncated. Copy it again from where it was created.',
};

/** Offline checks of spec rule 8 (rules 1–2 plus shape and checksum). Returns the first problem, or null. */
export function checkApiKey(key: string | undefined | null): KeyProblem | null {
  if (key === undefined || key === null || key === '') return 'missing';
  if (/\s/.test(key)) return 'whitespace';
  const lower = key.toLowerCase();
  if (
    PLACEHOLDER_KEYS.includes(lower) ||
    /^x{3,}$/i.test(key) ||
    /^<.*>$/.test(key) ||
    /^\$\{.*\}$/.test(key) ||
    /^\$[A-Z_][A-Z0-9_]*$/.test(key)
  )
    return 'placeholder';
  if (key.length < 16) return 'too_short';
  const m = SHAPE.exec(key);
  if (!m) return 'bad_shape';
  const body = key.slice(0, -CHECKSUM_LENGTH);
  if (checksumOf(body) !== key.slice(-CHECKSUM_LENGTH)) return 'bad_checksum';
  return null;
}
