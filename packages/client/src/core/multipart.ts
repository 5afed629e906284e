import { randomBytes } from 'node:crypto';

export interface MultipartFile {
  fileName: string;
  contentType: string;
  /** Known for paths and Buffers: lets us send Content-Length instead of chunked encoding. */
  size?: number;
  /** Opens a fresh stream of the file's bytes (called once per attempt). */
  open(): AsyncIterable<Uint8Array>;
}

export interface MultipartBody {
  contentType: string;
  contentLength?: number;
  /** A new stream per call: the fields, then the file part, read from disk as it is sent. */
  stream(): AsyncIterable<Uint8Array>;
}

const CRLF = '\r\n';
const encoder = new TextEncoder();

/** Quoted-string per RFC 7578: escape the quote and drop line breaks, which would end the header. */
function quote(value: string): string {
  return `"${value.replace(/[\r\n]+/g, ' ').replace(/\\/g, '\\\\').replace(/"/g, '%22')}"`;
}

/**
 * A multipart/form-data body built by hand so it streams: undici's FormData only takes Blobs, and
 * the server reads the text fields before the file, so the fields must come first.
 */
export function buildMultipart(fields: Array<[string, string]>, fileField: string, file: MultipartFile): MultipartBody {
  for (const [name, value] of fields) {
    if (/[\r\n]/.test(value)) throw new TypeError(`Upload field ${name} cannot hold a line break`);
  }
  const boundary = `----testreport${randomBytes(12).toString('hex')}`;
  const head = encoder.encode(
    fields.map(([name, value]) => `--${boundary}${CRLF}Content-Disposition: form-data; name=${quote(name)}${CRLF}${CRLF}${value}${CRLF}`).join('') +
      `--${boundary}${CRLF}Content-Disposition: form-data; name=${quote(fileField)}; filename=${quote(file.fileName)}${CRLF}` +
      `Content-Type: ${file.contentType}${CRLF}${CRLF}`,
  );
  const tail = encoder.encode(`${CRLF}--${boundary}--${CRLF}`);
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    contentLength: file.size === undefined ? undefined : head.byteLength + file.size + tail.byteLength,
    async *stream() {
      yield head;
      for await (const chunk of file.open()) yield chunk;
      yield tail;
    },
  };
}
