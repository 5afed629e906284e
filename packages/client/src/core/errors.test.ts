import { describe, expect, it } from 'vitest';
import {
  ApiError,
  ConnectionError,
  InsecureTransportError,
  KeyValidationError,
  RateLimitError,
  ServerError,
  TestReportError,
  ValidationError,
} from '../index.js';
import { errorFromResponse } from './errors.js';

describe('error classes', () => {
  it('every SDK error is a TestReportError, testable with instanceof and named after its class', () => {
    const api = errorFromResponse(400, new Headers(), '{"error":{"code":"VALIDATION_ERROR","message":"bad"}}');
    const cases: Array<[Error, Function]> = [
      [api, ValidationError],
      [errorFromResponse(503, new Headers(), ''), ServerError],
      [errorFromResponse(429, new Headers({ 'retry-after': '2' }), ''), RateLimitError],
      [new ConnectionError('refused'), ConnectionError],
      [new KeyValidationError('placeholder'), KeyValidationError],
      [new InsecureTransportError('http://example.com'), InsecureTransportError],
    ];
    for (const [err, cls] of cases) {
      expect(err).toBeInstanceOf(cls);
      expect(err).toBeInstanceOf(TestReportError);
      expect(err).toBeInstanceOf(Error);
      expect(err.name).toBe(cls.name);
    }
    expect(api).toBeInstanceOf(ApiError);
    expect(new ConnectionError('x')).not.toBeInstanceOf(ApiError);
    expect(new Error('plain')).not.toBeInstanceOf(TestReportError);
  });
});
