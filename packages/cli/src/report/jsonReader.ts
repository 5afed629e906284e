import { createReadStream } from 'node:fs';

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
  private buf: Buffer = Buffer.alloc(0);
  private pos = 0;
  /** File offset of buf[0], for error messages. */
  private base = 0;
  private done = false;
  private readonly chunks: AsyncIterator<Buffer>;
  private readonly stream: ReturnType<typeof createReadStream>;

  constructor(file: string, chunkBytes = 256 * 1024) {
    this.stream = createReadStream(file, { highWaterMark: chunkBytes });
    this.chunks = (this.stream as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  }

  close(): void {
    this.stream.destroy();
  }

  /** Appends the next chunk, keeping the unread rest; false at the end of the file. */
  private async more(): Promise<boolean> {
    if (this.done) return false;
    const { value, done } = await this.chunks.next();
    if (done) {
      this.done = true;
      return false;
    }
    const rest = this.buf.length - this.pos;
    this.base += this.pos;
    this.buf = rest ? Buffer.concat([this.buf.subarray(this.pos), value]) : value;
    this.pos = 0;
    return true;
  }

  private fail(what: string, at = this.pos): never {
    throw new JsonSyntaxError(`${what} at byte ${this.base + at}`);
  }

  /** The next byte that is not whitespace, not consumed; -1 at the end of the file. */
  async peek(): Promise<number> {
    for (;;) {
      const { buf } = this;
      while (this.pos < buf.length && isSpace(buf[this.pos])) this.pos++;
      if (this.pos < buf.length) return buf[this.pos];
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
      end = scanValue(this.buf, this.pos, scan);
      if (end >= 0) break;
      // Indices are relative to the unread rest, which moves to the front of the buffer.
      const consumed = this.pos;
      if (!(await this.more())) {
        // A number or literal may end the file; anything else is cut short.
        if (scan.depth === 0 && !scan.inString && first !== QUOTE) {
          end = this.buf.length;
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
function scanValue(buf: Buffer, start: number, s: Scan): number {
  const first = buf[start];
  const len = buf.length;
  let i = s.i;
  if (first === QUOTE || s.depth > 0) {
    let depth = s.depth;
    let inString = s.inString;
    while (i < len) {
      if (inString) {
        const q = buf.indexOf(QUOTE, i);
        if (q < 0) {
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
