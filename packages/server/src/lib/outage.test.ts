import { describe, expect, it } from 'vitest';
import { storeOutage } from '../artifacts/storeOutages.js';
import { databaseOutage } from '../db/errors.js';
import { ValidationError } from './errors.js';

const withCode = (message: string, fields: Record<string, unknown>) => Object.assign(new Error(message), fields);

describe('which errors are outages (issue 26)', () => {
  it('a full disk is 507 INSUFFICIENT_STORAGE with Retry-After', () => {
    for (const err of [withCode('database or disk is full', { code: 'SQLITE_FULL' }), withCode('could not extend file', { code: '53100' }), withCode('ENOSPC: no space left on device, write', { code: 'ENOSPC', syscall: 'write' })]) {
      const out = databaseOutage(err)!;
      expect(out.status).toBe(507);
      expect(out.code).toBe('INSUFFICIENT_STORAGE');
      expect(Number(out.headers?.['Retry-After'])).toBeGreaterThan(0);
    }
  });

  it('a database restarting, shutting down or out of reach is 503 SERVICE_UNAVAILABLE with Retry-After', () => {
    const errs = [
      withCode('terminating connection due to administrator command', { code: '57P01' }),
      withCode('the database system is starting up', { code: '57P03' }),
      withCode('connection failure', { code: '08006' }),
      withCode('sorry, too many clients already', { code: '53300' }),
      new Error('Connection terminated unexpectedly'),
      withCode('connect ECONNREFUSED 127.0.0.1:5432', { code: 'ECONNREFUSED', syscall: 'connect' }),
      withCode('disk I/O error', { code: 'SQLITE_IOERR_WRITE' }),
    ];
    for (const err of errs) {
      const out = databaseOutage(err)!;
      expect(out?.status, err.message).toBe(503);
      expect(out.code).toBe('SERVICE_UNAVAILABLE');
      expect(out.headers?.['Retry-After']).toBe('2');
    }
  });

  it('faults of the request or the code are not outages', () => {
    for (const err of [withCode('UNIQUE constraint failed', { code: 'SQLITE_CONSTRAINT_UNIQUE' }), withCode('duplicate key', { code: '23505' }), new TypeError('x is undefined'), withCode('aborted', { code: 'ECONNRESET' })]) {
      expect(databaseOutage(err)).toBeUndefined();
    }
  });

  it('the store: S3 answering 5xx or timing out is unavailable; a client hanging up mid-upload or a refused body is not', () => {
    expect(storeOutage(withCode('Service Unavailable', { name: 'ServiceUnavailable', $metadata: { httpStatusCode: 503 } }))).toBe('unavailable');
    expect(storeOutage(withCode('timed out', { name: 'TimeoutError' }))).toBe('unavailable');
    expect(storeOutage(withCode('ENOSPC', { code: 'ENOSPC', syscall: 'write' }))).toBe('full');
    expect(storeOutage(withCode('Access Denied', { name: 'AccessDenied', $metadata: { httpStatusCode: 403 } }))).toBeUndefined();
    expect(storeOutage(withCode('aborted', { code: 'ECONNRESET' }))).toBeUndefined();
    expect(storeOutage(new ValidationError('file', 'too_long'))).toBeUndefined();
  });
});
