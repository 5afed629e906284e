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

  /** `text` as UTF-8 after its length in bytes (a big-endian int32): a field of PostgreSQL's binary COPY. */
  sized(text: string) {
    this.reserve(4);
    const at = this.#length;
    this.#length += 4;
    this.write(text);
    // After the write: it may have moved the bytes to a larger buffer.
    this.#buf.writeInt32BE(this.#length - at - 4, at);
  }

  int16(n: number) {
    this.reserve(2);
    this.#length = this.#buf.writeInt16BE(n, this.#length);
  }

  int32(n: number) {
    this.reserve(4);
    this.#length = this.#buf.writeInt32BE(n, this.#length);
  }

  /** An integer of up to 53 bits as a big-endian int64. */
  int64(n: number) {
    this.reserve(8);
    const hi = Math.floor(n / 0x1_0000_0000);
    this.#buf.writeInt32BE(hi, this.#length);
    this.#length = this.#buf.writeUInt32BE(n - hi * 0x1_0000_0000, this.#length + 4);
  }

  float64(n: number) {
    this.reserve(8);
    this.#length = this.#buf.writeDoubleBE(n, this.#length);
  }

  /** `bytes` as they are. */
  raw(bytes: Uint8Array) {
    this.reserve(bytes.length);
    this.#buf.set(bytes, this.#length);
    this.#length += bytes.length;
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
