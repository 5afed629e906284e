import type { TestReportClient } from '../client.js';

/** Resources are thin: each method names its operation and hands the arguments to the client core. */
export abstract class APIResource {
  constructor(protected readonly client: TestReportClient) {}
}
