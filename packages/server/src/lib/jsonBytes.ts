import { ByteWriter } from './byteWriter.js';
import { stringifyResponse } from './deepJson.js';

/** From this many elements, a top-level array is written element by element as bytes. */
const BYTES_FROM = 256;

/**
 * A response body: JSON text, or its UTF-8 bytes when the payload holds a long array at its top
 * (`{ data: [500 results] }`, a page of 1,000 tests). The same JSON as `stringifyResponse` either way.
 *
 * JSON.stringify of such a payload is a string of 100+ KB, which V8 keeps in its large-object space
 * and flattens into a second one when it is written out: fresh pages each time, and on the virtual
 * machines this server is measured on every first touch of a page is a ~19 µs fault (issue 30;
 * http/splitJson.ts says the same of request bodies). Writing each element's small string into a
 * Buffer (memory that the allocator hands out again) makes neither.
 */
export function encodeResponse(value: unknown): string | Uint8Array<ArrayBuffer> {
  if (Array.isArray(value)) return value.length >= BYTES_FROM ? arrayBytes(new ByteWriter(), value).bytes() : stringifyResponse(value);
  if (!isPlainObject(value) || !Object.values(value).some((v) => Array.isArray(v) && v.length >= BYTES_FROM)) return stringifyResponse(value);
  const out = new ByteWriter();
  out.write('{');
  let first = true;
  for (const [key, v] of Object.entries(value)) {
    // JSON.stringify leaves such members out.
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    out.write(`${first ? '' : ','}${JSON.stringify(key)}:`);
    first = false;
    if (Array.isArray(v) && v.length >= BYTES_FROM) arrayBytes(out, v);
    else out.write(stringifyResponse(v));
  }
  out.write('}');
  return out.bytes();
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null) && !('toJSON' in v);

function arrayBytes(out: ByteWriter, items: unknown[]): ByteWriter {
  out.write('[');
  for (let i = 0; i < items.length; i++) {
    // An element JSON.stringify cannot write (undefined, a function) is `null` in an array.
    const text = stringifyResponse(items[i]) ?? 'null';
    out.write(i === 0 ? text : `,${text}`);
    // Room for the rest at the first element's size, so the buffer is rarely copied to grow.
    if (i === 0) out.reserve(text.length * (1.25 * (items.length - 1) + 3));
  }
  out.write(']');
  return out;
}
