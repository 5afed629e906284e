/**
 * `COPY … FROM STDIN` as one round trip: a `pg` submittable that writes the statement, every
 * CopyData message and CopyDone in one go, instead of waiting for the server's CopyInResponse
 * before sending the data as pg-copy-streams does. Under load that wait is a trip through a busy
 * event loop while the backend sits in ClientRead (docs/benchmarks.md, twenty-fourth session).
 *
 * Sending early is what the protocol allows: the backend reads the data in order after the
 * statement, and if the statement or a row fails it answers ErrorResponse and ReadyForQuery and
 * ignores the CopyData and CopyDone still coming (PostgreSQL's postgres.c accepts and drops them
 * outside copy mode "because a COPY failed, and the frontend is still sending data").
 *
 * It is thenable, so the `await client.query(copy)` in Kysely's PostgreSQL connection waits for it
 * and reads `{ command, rowCount, rows }` from its result.
 */

interface PgConnection {
  stream: { cork(): void; uncork(): void; write(chunk: Uint8Array): boolean; writable: boolean };
  query(text: string): void;
}

export interface CopyResult {
  command: 'COPY';
  rowCount: number;
  rows: never[];
}

const COPY_DATA = 0x64; // 'd'
const COPY_DONE = Buffer.from([0x63, 0, 0, 0, 4]); // 'c', length 4

export class CopyFromQuery implements PromiseLike<CopyResult> {
  private rowCount = 0;
  private readonly done: Promise<CopyResult>;
  private resolve!: (result: CopyResult) => void;
  private reject!: (error: unknown) => void;

  constructor(
    readonly text: string,
    private readonly chunks: readonly Uint8Array[],
  ) {
    this.done = new Promise<CopyResult>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  /** Called by `pg` when this is the connection's turn. */
  submit(connection: PgConnection): void {
    const { stream } = connection;
    stream.cork();
    connection.query(this.text);
    for (const chunk of this.chunks) {
      const head = Buffer.allocUnsafe(5);
      head[0] = COPY_DATA;
      head.writeUInt32BE(chunk.length + 4, 1);
      stream.write(head);
      stream.write(chunk);
    }
    stream.write(COPY_DONE);
    stream.uncork();
  }

  // `pg` replaces this with its timer's callback when a query_timeout is set.
  callback(): void {}

  /** The data went with the statement: nothing left to send. */
  handleCopyInResponse(): void {}

  handleCommandComplete(msg: { text?: string }): void {
    const match = /^COPY (\d+)/.exec(msg.text ?? '');
    if (match) this.rowCount = Number(match[1]);
  }

  handleReadyForQuery(): void {
    this.callback();
    this.resolve({ command: 'COPY', rowCount: this.rowCount, rows: [] });
  }

  handleError(error: unknown): void {
    this.callback();
    this.reject(error);
  }

  then<A = CopyResult, B = never>(onFulfilled?: ((value: CopyResult) => A | PromiseLike<A>) | null, onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<A | B> {
    return this.done.then(onFulfilled, onRejected);
  }
}
