/**
 * A request body the caller has already serialised as the JSON of `T`: sent as these bytes. The
 * Playwright reporter writes each result's JSON to its spool and builds a batch's body from the same
 * strings, so a result is serialised once, not once for the spool and again for the request.
 */
export class JsonText<T> {
  /** Only carries `T` for the type checker. */
  declare readonly of?: T;
  constructor(readonly text: string) {}
}
