import type { CompiledQuery, DatabaseConnection, Kysely } from 'kysely';
import { openConnectionOf } from './transaction.js';

/** A statement held back to be sent later (`executeLater`); `copy` is a COPY … FROM STDIN's data. */
export interface LaterStep {
  sql: string;
  parameters: readonly unknown[];
  copy?: readonly Uint8Array[];
  /** Called once it has succeeded (e.g. to reuse the COPY's buffers). */
  done?: () => void;
}

/** A connection that can hold statements back (PostgreSQL's: dialects/postgresPipelining.ts). */
interface HoldsBack extends DatabaseConnection {
  later(step: LaterStep): void;
  /** Sends what is held back now. */
  run(): Promise<void>;
}

const holdsBack = (conn: DatabaseConnection | undefined): conn is HoldsBack => typeof (conn as Partial<HoldsBack> | undefined)?.later === 'function';

/**
 * The connection of the transaction this call chain holds on `db`, when it can hold statements back
 * until its next statement or COMMIT (PostgreSQL: one round trip for several, dialects/postgresPipelining.ts).
 */
export function laterConnection(db: Kysely<any>): HoldsBack | undefined {
  const conn = openConnectionOf(db);
  return holdsBack(conn) ? conn : undefined;
}

/**
 * Runs a write whose result nobody reads. Inside a transaction on PostgreSQL it is held back and
 * sent with the transaction's next statement or its COMMIT; its failure then fails that statement,
 * and so the transaction, as it would have failed here. Elsewhere it runs now.
 */
export async function executeLater(db: Kysely<any>, compiled: CompiledQuery): Promise<void> {
  const conn = laterConnection(db);
  if (conn) conn.later({ sql: compiled.sql, parameters: compiled.parameters });
  else await db.executeQuery(compiled);
}

/**
 * Sends now what this call chain's transaction on `db` holds back, so that a failure of it is
 * this caller's and not the next statement's (jointWrites.ts tells its calls' failures from the
 * group's COMMIT's).
 */
export async function sendHeldBack(db: Kysely<any>): Promise<void> {
  await laterConnection(db)?.run();
}
