/** The optional last argument of every method. */
export interface RequestOptions {
  /** POSTs only: replaces the generated Idempotency-Key (reused across this call's retries). */
  idempotencyKey?: string;
  /** Cancels the call, including waits between retries. */
  signal?: AbortSignal;
  /** Per-attempt time-out for this call. */
  timeoutMs?: number;
}
