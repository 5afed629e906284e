import { randomBytes } from 'node:crypto';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { formatApiKey } from '@testreport/contract/core';
import { TestReportClient, type ClientOptions } from '../index.js';

/** msw (test-only) for what a real server cannot do on cue: resets, 503 bursts, Retry-After, stalls. */
export const MOCK_URL = 'https://testreport.test';
export const MOCK_BASE = `${MOCK_URL}/api/v1`;

export interface SeenRequest {
  method: string;
  url: string;
  headers: Headers;
  /** performance.now() when the mock received it. */
  at: number;
}

export const validKey = () => formatApiKey(randomBytes(64));

/** Starts msw for the calling test file and records every request it sees. */
export function useMockApi() {
  const server = setupServer();
  const seen: SeenRequest[] = [];
  server.events.on('request:start', ({ request }) => {
    seen.push({ method: request.method, url: request.url, headers: request.headers, at: performance.now() });
  });
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
  afterEach(() => {
    server.resetHandlers();
    seen.length = 0;
  });
  afterAll(() => server.close());
  return { server, seen };
}

/** A client whose fetch goes through globalThis.fetch at call time, i.e. through msw. */
export function mockClient(options: ClientOptions = {}) {
  return new TestReportClient({
    url: MOCK_URL,
    apiKey: validKey(),
    retryBaseMs: 5,
    retryMaxDelayMs: 50,
    fetch: (url, init) => globalThis.fetch(url, init),
    ...options,
  });
}
