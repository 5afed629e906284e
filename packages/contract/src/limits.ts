// Free of zod, like everything `core.ts` exports: clients that need only the numbers load no schemas.
/** Bounds and caps settled by docs/decisions.md §4; exported so server, SDK and docs agree. */
export const LIMITS = {
  titleChars: 1_000,
  nameChars: 200,
  outputBytes: 1024 * 1024,
  errorTextBytes: 64 * 1024,
  pageDefault: 50,
  pageMax: 500,
  batchMax: 500,
  historyLength: 20,
  flakinessWindow: 50,
  apiKeyMinLength: 16,
  /** How deep test steps may nest; deeper bodies are refused with a 400 (real suites stay far below). */
  stepDepth: 100,
  /** Tries of one test (`attempts`, docs/decisions.md §13): Playwright's retries rarely pass 10. */
  attemptsMax: 50,
  /** Errors of one try (soft assertions add one each). */
  attemptErrorsMax: 50,
  /** A Playwright code snippet around a failing line (a few lines; longer is truncated). */
  snippetChars: 16 * 1024,
  /** Text attachments (text/*, JSON, Markdown, Playwright's error-context) kept inline per try, and each one's cap. */
  textAttachmentsMax: 20,
  textAttachmentChars: 64 * 1024,
} as const;
