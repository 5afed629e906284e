// The SDK without the contract's schemas (see @testreport/contract/core): what calling the API
// needs, for code that cares how long it takes to load (the Playwright reporter). `index` adds the schemas.
export { TestReportClient, type ClientOptions, type CallArgs, type CallResult } from './client.js';
export {
  TestReportError,
  ApiError,
  ValidationError,
  AuthenticationError,
  PermissionError,
  NotFoundError,
  ConflictError,
  PayloadTooLargeError,
  RateLimitError,
  ServerError,
  ConnectionError,
  KeyValidationError,
  InsecureTransportError,
  type ErrorDetails,
} from './core/errors.js';
export type { RequestOptions } from './core/requestOptions.js';
export type { FetchLike, RetryInfo } from './core/transport.js';
export { taskPool, type BulkOptions, type TaskPool } from './core/bulk.js';
export { JsonText } from './core/jsonText.js';
export type { Page } from './core/pagination.js';
export { isLoopbackHost } from './core/security.js';
export type { UploadInput } from './resources/artifacts.js';
export type { LoginResult } from './resources/auth.js';
export { VERSION } from './version.js';
export { renderRunSummary, formatDuration, SUMMARY_MARKER, SUMMARY_MAX_CHARS, type RenderOptions, type SummaryFormat } from './summary/render.js';
