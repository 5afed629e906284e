/**
 * Text written straight into a growing Buffer as UTF-8: for long outputs made of many small
 * strings (lib/jsonBytes.ts, db/dialects/postgresCopy.ts). Concatenating them into one string made
 * V8 build a large string and flatten it into another before its bytes were taken — fresh pages
 * each time, and on the virtual machines this server is measured on every first touch of a page
 * is a ~19 µs fault (issue 30).
 */
export class ByteWriter {
  #buf: Buffer<ArrayBuffer>;
  #length = 0;

  /** `buffer`: memory to write into first (a scratch buffer the caller keeps for the next time). */
  constructor(buffer: Buffer<ArrayBuffer> = Buffer.allocUnsafeSlow(16 * 1024)) {
    this.#buf = buffer;
  }

  get length(): number {
    return this.#length;
  }

  reserve(bytes: number) {
    if (this.#length + bytes <= this.#buf.length) return;
    const next = Buffer.allocUnsafeSlow(Math.max(Math.ceil(this.#length + bytes), this.#buf.length * 2));
    this.#buf.copy(next, 0, 0, this.#length);
    this.#buf = next;
  }

  write(text: string) {
    // A UTF-16 unit takes at most 3 bytes of UTF-8.
    this.reserve(text.length * 3);
    const buf = this.#buf;
    let at = this.#length;
    // Short ASCII (ids, days, numbers: most values written) byte by byte: a call into
    // Buffer#write costs more than the copy itself.
    if (text.length <= 64) {
      let i = 0;
      for (; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (c >= 0x80) break;
        buf[at++] = c;
      }
      if (i === text.length) {
        this.#length = at;
        return;
      }
      text = text.slice(i);
    }
    this.#length = at + buf.write(text, at);
  }

  /** One byte (an ASCII character's code). */
  byte(code: number) {
    this.reserve(1);
    this.#buf[this.#length++] = code;
  }

  /** `bytes` as lowercase hexadecimal digits. */
  hex(bytes: Uint8Array) {
    this.reserve(bytes.length * 2);
    const buf = this.#buf;
    let at = this.#length;
    for (let i = 0; i < bytes.length; i++) {
      const b = bytes[i]!;
      buf[at++] = HEX[b >> 4]!;
      buf[at++] = HEX[b & 15]!;
    }
    this.#length = at;
  }

  /** What was written, on the writer's memory (valid until the next write). */
  bytes(): Uint8Array<ArrayBuffer> {
    return new Uint8Array(this.#buf.buffer, this.#buf.byteOffset, this.#length);
  }

  /** The Buffer written into (it may have grown past the one given): to keep for the next time. */
  buffer(): Buffer<ArrayBuffer> {
    return this.#buf;
  }
}

const HEX = Buffer.from('0123456789abcdef', 'latin1');
