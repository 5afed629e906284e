/**
 * Parses a large batch body (`{"tests":[{…},{…},…]}`) one element at a time, straight from its
 * bytes, so that no string of the whole body is ever made (issue 30).
 *
 * A string past 128 KiB goes to V8's large-object space: fresh pages mapped for it and unmapped
 * once it dies. On the virtual machines this server is measured on, each first touch of such a page
 * costs ~19 µs (a page fault that leaves the guest): decoding a 400 KB batch of 500 tests took
 * 100 faults, ~2 ms, about as long as parsing it. Pieces of ~1 KB live and die in the young
 * generation instead, whose pages stay mapped.
 *
 * Elements are cut where `},` is followed by the first element's opening up to its first key
 * (`{"runId":`), and each piece is checked by JSON.parse itself: a piece that starts where an
 * element starts and parses is exactly that element, because no proper prefix of a JSON object is
 * a complete JSON value, and an element followed by more text is not one either. So where the cuts
 * fall decides only the speed, never the value. Such a separator cannot occur inside a string (its
 * quote would be escaped there), but a nested object that opens with the same key can: a piece that
 * does not parse, like anything else (another shape, whitespace between elements, a syntax error),
 * returns undefined, and the caller parses the whole text as before, with the same value and the
 * same error message. Finding the element's end by scanning its structure instead took twice as
 * long as the whole-text parse; the reporter and `reporter upload` send `runId` first, a key their
 * steps, attempts and errors do not open with.
 */

const isSpace = (c: number | undefined) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
const QUOTE = 0x22;

const parsePiece = (bytes: Buffer, start: number, end: number): { ok: true; value: unknown } | { ok: false } => {
  try {
    return { ok: true, value: JSON.parse(bytes.toString('utf8', start, end)) };
  } catch {
    return { ok: false };
  }
};

/** `{"key":[` at the start: the key and where the first element begins, or undefined. */
function opening(bytes: Buffer): { key: string; at: number } | undefined {
  let i = 0;
  while (isSpace(bytes[i])) i++;
  if (bytes[i] !== 0x7b || bytes[i + 1] !== QUOTE) return undefined;
  const keyEnd = bytes.indexOf(QUOTE, i + 2);
  if (keyEnd < 0 || bytes[keyEnd + 1] !== 0x3a || bytes[keyEnd + 2] !== 0x5b || bytes[keyEnd + 3] !== 0x7b) return undefined;
  const key = parsePiece(bytes, i + 1, keyEnd + 1);
  // JSON.parse would make `__proto__` an own property; plain assignment would set the prototype.
  if (!key.ok || typeof key.value !== 'string' || key.value === '__proto__') return undefined;
  return { key: key.value, at: keyEnd + 3 };
}

/** `},` and the first element's text up to its first key's colon (`},{"runId":`), or `},{` when it has none. */
function separatorAfter(bytes: Buffer, first: number): Buffer {
  const colon = bytes[first + 1] === QUOTE ? bytes.indexOf('":', first + 2) : -1;
  return Buffer.concat([Buffer.from('},'), bytes.subarray(first, colon < 0 || colon - first > 256 ? first + 1 : colon + 2)]);
}

/** Where the array's text ends (the index of its `]` in a closing `]}`), or -1. */
function closing(bytes: Buffer): number {
  let end = bytes.length;
  while (isSpace(bytes[end - 1])) end--;
  return bytes[end - 1] === 0x7d && bytes[end - 2] === 0x5d && bytes[end - 3] === 0x7d ? end - 2 : -1;
}

/**
 * The value of a body of the shape `{"<key>":[{…},…]}` without whitespace between elements (what
 * JSON.stringify writes), or undefined for any other text, valid or not.
 */
export function parseArrayBody(bytes: Buffer): { value: Record<string, unknown[]>; escapes: boolean } | undefined {
  const open = opening(bytes);
  const arrayEnd = closing(bytes);
  if (!open || arrayEnd < open.at) return undefined;
  const separator = separatorAfter(bytes, open.at);
  const items: unknown[] = [];
  let start = open.at;
  while (start < arrayEnd) {
    const cut = bytes.indexOf(separator, start);
    const end = cut < 0 || cut >= arrayEnd ? arrayEnd : cut + 1;
    const piece = parsePiece(bytes, start, end);
    if (!piece.ok) return undefined;
    items.push(piece.value);
    start = end + 1;
  }
  if (start !== arrayEnd + 1) return undefined;
  // Decoded bytes hold no lone surrogate; only a `\uD800`-style escape can put one in a string.
  return { value: { [open.key]: items }, escapes: bytes.includes('\\u') };
}
