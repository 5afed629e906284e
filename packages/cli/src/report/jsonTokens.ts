import { createReadStream } from 'node:fs';
import StreamJson, { type Token } from 'stream-json';

/** The token stream of a JSON file, values packed (a string arrives whole, never the document). */
export async function* jsonTokens(file: string): AsyncGenerator<Token> {
  const source = createReadStream(file, { highWaterMark: 256 * 1024 });
  const tokens = StreamJson.parser({ packValues: true, streamValues: false });
  source.on('error', (err) => tokens.destroy(err));
  source.pipe(tokens);
  try {
    for await (const token of tokens as AsyncIterable<Token>) yield token;
  } finally {
    source.destroy();
    tokens.destroy();
  }
}

/**
 * Builds one JSON value from tokens, for the small subtrees worth holding (a spec, the config).
 * `consume` returns true when the value is complete.
 */
export class ValueBuilder {
  private stack: unknown[] = [];
  private keys: (string | null)[] = [];
  value: unknown = undefined;

  constructor(private readonly discard = false) {}
  private depth = 0;

  consume(token: Token): boolean {
    if (this.discard) {
      if (token.name === 'startObject' || token.name === 'startArray') this.depth++;
      else if (token.name === 'endObject' || token.name === 'endArray') this.depth--;
      return this.depth === 0 && token.name !== 'keyValue';
    }
    switch (token.name) {
      case 'startObject':
        this.stack.push({});
        this.keys.push(null);
        return false;
      case 'startArray':
        this.stack.push([]);
        this.keys.push(null);
        return false;
      case 'endObject':
      case 'endArray': {
        const done = this.stack.pop();
        this.keys.pop();
        return this.place(done);
      }
      case 'keyValue':
        this.keys[this.keys.length - 1] = token.value as string;
        return false;
      case 'numberValue':
        return this.place(Number(token.value));
      case 'stringValue':
      case 'nullValue':
      case 'trueValue':
      case 'falseValue':
        return this.place(token.value);
      default:
        return false;
    }
  }

  private place(v: unknown): boolean {
    if (this.stack.length === 0) {
      this.value = v;
      return true;
    }
    const top = this.stack[this.stack.length - 1];
    if (Array.isArray(top)) top.push(v);
    else (top as Record<string, unknown>)[this.keys[this.keys.length - 1] as string] = v;
    return false;
  }
}
