import { open, type FileHandle } from 'node:fs/promises';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** A syntax error at a byte offset of the file (the walker turns it into a MalformedReportError). */
export class JsonSyntaxError extends Error {}

/**
 * Reads a JSON document from a file in chunks, for walkers that know its shape: the levels they
 * walk are read token by token (`next`, `key`), every other value is found by a byte scan (strings
 * are skipped with `indexOf`) and handed whole to `JSON.parse`, which is an order of magnitude
 * faster than a JavaScript tokenizer. Only the value being read is ever held, so memory stays
 * bounded by the largest single value (a spec), not the file.
 */
export class JsonReader {
  /** One buffer for the whole file: the unread rest moves to its front, new bytes are read behind it. */
  private buf: Buffer;
  /** Bytes of `buf` that hold data. */
  private len = 0;
  private pos = 0;
  /** File offset of buf[0], for error messages. */
  private base = 0;
  private done = false;
  private readonly handle: Promise<FileHandle>;

  constructor(file: string, chunkBytes = 256 * 1024) {
    this.buf = Buffer.allocUnsafe(chunkBytes);
    this.handle = open(file, 'r');
    // Opening errors surface on the first read; until then nobody awaits the promise.
    this.handle.catch(() => {});
  }

  close(): void {
    this.handle.then((h) => h.close()).catch(() => {});
  }

  /**
   * Reads more of the file behind the unread rest, with no allocation unless one value is larger
   * than the buffer (which then doubles); false at the end of the file.
   */
  private async more(): Promise<boolean> {
    if (this.done) return false;
    const rest = this.len - this.pos;
    if (this.pos > 0) {
      this.buf.copy(this.buf, 0, this.pos, this.len);
      this.base += this.pos;
      this.pos = 0;
      this.len = rest;
    }
    if (this.len === this.buf.length) {
      const bigger = Buffer.allocUnsafe(this.buf.length * 2);
      this.buf.copy(bigger, 0, 0, this.len);
      this.buf = bigger;
    }
    const { bytesRead } = await (await this.handle).read(this.buf, this.len, this.buf.length - this.len, null);
    if (bytesRead === 0) {
      this.done = true;
      return false;
    }
    this.len += bytesRead;
    return true;
  }

  private fail(what: string, at = this.pos): never {
    throw new JsonSyntaxError(`${what} at byte ${this.base + at}`);
  }

  /** The next byte that is not whitespace, not consumed; -1 at the end of the file. */
  async peek(): Promise<number> {
    for (;;) {
      const { buf, len } = this;
      while (this.pos < len && isSpace(buf[this.pos])) this.pos++;
      if (this.pos < len) return buf[this.pos];
      if (!(await this.more())) return -1;
    }
  }

  /** Consumes one punctuation byte (`{ } [ ] , :`), which must be next. */
  async expect(c: number): Promise<void> {
    const got = await this.peek();
    if (got !== c) this.fail(got < 0 ? `unexpected end of file, expected "${String.fromCharCode(c)}"` : `expected "${String.fromCharCode(c)}", found "${String.fromCharCode(got)}"`);
    this.pos++;
  }

  /**
   * After an element of an object or array: true when another follows (its comma consumed), false
   * when `close` ends it (consumed).
   */
  async another(close: number): Promise<boolean> {
    const c = await this.peek();
    if (c === 0x2c) {
      this.pos++;
      return true;
    }
    await this.expect(close);
    return false;
  }

  /** Starts an object or array (`open` consumed); false when it is empty (its end consumed too). */
  async open(open: number, close: number): Promise<boolean> {
    await this.expect(open);
    if ((await this.peek()) === close) {
      this.pos++;
      return false;
    }
    return true;
  }

  /** An object's key and its colon. */
  async key(): Promise<string> {
    if ((await this.peek()) !== QUOTE) this.fail('expected a key');
    const k = await this.value();
    await this.expect(0x3a);
    return k as string;
  }

  /** The next whole value, parsed. */
  async value(): Promise<unknown> {
    const first = await this.peek();
    if (first < 0) this.fail('unexpected end of file');
    const scan: Scan = { i: this.pos + 1, depth: first === 0x7b || first === 0x5b ? 1 : 0, inString: first === QUOTE };
    let end: number;
    for (;;) {
      end = scanValue(this.buf, this.len, this.pos, scan);
      if (end >= 0) break;
      // Indices are relative to the unread rest, which moves to the front of the buffer.
      const consumed = this.pos;
      if (!(await this.more())) {
        // A number or literal may end the file; anything else is cut short.
        if (scan.depth === 0 && !scan.inString && first !== QUOTE) {
          end = this.len;
          break;
        }
        this.fail('unexpected end of file');
      }
      scan.i -= consumed;
    }
    const text = this.buf.toString('utf8', this.pos, end);
    const at = this.pos;
    this.pos = end;
    try {
      return JSON.parse(text);
    } catch (e) {
      return this.fail((e as Error).message.split('\n')[0].replace(/ in JSON at position \d+.*$/, ''), at);
    }
  }
}

/** Where a value's scan stopped: the next byte to look at, nesting depth, inside a string or not. */
interface Scan {
  i: number;
  depth: number;
  inString: boolean;
}

/**
 * The end (exclusive) of the value starting at `start`, or -1 when the buffer ends first (`s`
 * then says where to resume once more bytes are appended). Only finds the boundary; JSON.parse
 * validates the bytes.
 */
function scanValue(buf: Buffer, len: number, start: number, s: Scan): number {
  const first = buf[start];
  let i = s.i;
  if (first === QUOTE || s.depth > 0) {
    let depth = s.depth;
    let inString = s.inString;
    while (i < len) {
      if (inString) {
        const q = buf.indexOf(QUOTE, i);
        // Bytes past `len` are left over from earlier reads.
        if (q < 0 || q >= len) {
          i = len;
          break;
        }
        let slashes = 0;
        while (buf[q - 1 - slashes] === BACKSLASH) slashes++;
        i = q + 1;
        if (slashes % 2 === 0) {
          inString = false;
          if (depth === 0) return i;
        }
        continue;
      }
      const c = buf[i++];
      if (c === QUOTE) inString = true;
      else if (c === 0x7b || c === 0x5b) depth++;
      else if (c === 0x7d || c === 0x5d) {
        if (--depth === 0) return i;
      }
    }
    s.i = i;
    s.depth = depth;
    s.inString = inString;
    return -1;
  }
  // A number, true, false or null: up to the next delimiter.
  while (i < len) {
    const c = buf[i];
    if (c === 0x2c || c === 0x7d || c === 0x5d || isSpace(c)) return i;
    i++;
  }
  s.i = i;
  return -1;
}
