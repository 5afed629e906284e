import { createRequire } from 'node:module';
import type pg from 'pg';
import type { LaterStep } from '../later.js';

/**
 * Several statements sent to PostgreSQL in one write and answered in one round trip: a `pg`
 * "submittable" (an object with `submit()`, which `client.query` runs in its turn on the client)
 * that writes each statement's Parse, Bind, Describe and Execute, a COPY's data right after its
 * Execute, and one Sync at the end. PostgreSQL runs them in order; the first that fails makes it
 * skip the rest up to the Sync (the protocol's pipelining, "55.2.4. Pipelining"), so a statement
 * after a failed one never runs, and the error is the failed one's.
 *
 * A COPY … FROM STDIN goes with its data: the backend reads the CopyData messages after the
 * statement, and if the COPY fails it ignores the ones still coming (it discards everything until
 * the Sync). Under load, waiting for its CopyInResponse before sending the data was a trip through
 * a busy event loop while the backend sat in ClientRead (docs/benchmarks.md, twenty-fourth session).
 *
 * It is thenable, so the `await client.query(pipeline)` in Kysely's PostgreSQL connection waits for
 * it and reads the last statement's `{ command, rowCount, rows }`.
 */

const require = createRequire(import.meta.url);
// pg's own row parsing and parameter encoding, so a pipelined statement reads and binds as `client.query` does.
const Result: new (rowMode: undefined, types: pg.CustomTypesConfig) => PgResult = require('pg/lib/result.js');
const { prepareValue }: { prepareValue(value: unknown): unknown } = require('pg/lib/utils.js');

interface PgResult {
  command: string | null;
  rowCount: number | null;
  rows: unknown[];
  addFields(fields: unknown[]): void;
  parseRow(fields: unknown[]): unknown;
  addRow(row: unknown): void;
  addCommandComplete(msg: unknown): void;
}

interface PgConnection {
  stream: { cork(): void; uncork(): void; write(chunk: Uint8Array): boolean };
  parse(q: { text: string; name: string; types: number[] }): void;
  bind(c: { portal: string; statement: string; values: unknown[]; binary: boolean }): void;
  describe(m: { type: 'P'; name: string }): void;
  execute(c: { portal: string; rows: number }): void;
  sync(): void;
}

export interface StepResult {
  command: string | null;
  rowCount: number;
  rows: unknown[];
}

const COPY_DATA = 0x64; // 'd'
const COPY_DONE = Buffer.from([0x63, 0, 0, 0, 4]); // 'c', length 4

export class Pipeline implements PromiseLike<StepResult> {
  private readonly values: unknown[][];
  private readonly results: PgResult[];
  /** The step whose answer arrives next. */
  private at = 0;
  private parseError: unknown;
  private readonly finished: Promise<StepResult>;
  private resolve!: (result: StepResult) => void;
  private reject!: (error: unknown) => void;

  constructor(
    private readonly steps: readonly LaterStep[],
    types: pg.CustomTypesConfig,
  ) {
    // Encoded before anything is sent: a value pg cannot send fails here, with nothing half-written.
    this.values = steps.map((s) => s.parameters.map((v) => prepareValue(v)));
    this.results = steps.map(() => new Result(undefined, types));
    this.finished = new Promise<StepResult>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  /** Called by `pg` when this is the connection's turn. */
  submit(connection: PgConnection): void {
    const { stream } = connection;
    stream.cork();
    try {
      this.steps.forEach((step, i) => {
        connection.parse({ text: step.sql, name: '', types: [] });
        connection.bind({ portal: '', statement: '', values: this.values[i]!, binary: false });
        if (!step.copy) connection.describe({ type: 'P', name: '' });
        connection.execute({ portal: '', rows: 0 });
        for (const chunk of step.copy ?? []) {
          const head = Buffer.allocUnsafe(5);
          head[0] = COPY_DATA;
          head.writeUInt32BE(chunk.length + 4, 1);
          stream.write(head);
          stream.write(chunk);
        }
        if (step.copy) stream.write(COPY_DONE);
      });
      connection.sync();
    } finally {
      stream.uncork();
    }
  }

  // `pg` replaces this with its timer's callback when a query_timeout is set.
  callback(): void {}

  handleRowDescription(msg: { fields: unknown[] }): void {
    this.results[this.at]?.addFields(msg.fields);
  }

  handleDataRow(msg: { fields: unknown[] }): void {
    const result = this.results[this.at];
    if (!result || this.parseError) return;
    try {
      result.addRow(result.parseRow(msg.fields));
    } catch (err) {
      this.parseError = err;
    }
  }

  handleCommandComplete(msg: unknown): void {
    this.results[this.at++]?.addCommandComplete(msg);
  }

  handleEmptyQuery(): void {
    this.at++;
  }

  /** The data went with the statement: nothing left to send. */
  handleCopyInResponse(): void {}

  handlePortalSuspended(): void {}

  handleReadyForQuery(): void {
    this.callback();
    if (this.parseError) return this.reject(this.parseError);
    for (const step of this.steps) step.done?.();
    const last = this.results[this.results.length - 1]!;
    this.resolve({ command: last.command, rowCount: last.rowCount ?? 0, rows: last.rows });
  }

  /** The first failed statement's error; PostgreSQL has skipped the ones after it. */
  handleError(error: unknown): void {
    this.callback();
    this.reject(error);
  }

  then<A = StepResult, B = never>(onFulfilled?: ((value: StepResult) => A | PromiseLike<A>) | null, onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<A | B> {
    return this.finished.then(onFulfilled, onRejected);
  }
}
