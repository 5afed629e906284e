import type { OperationId } from '@testreport/contract';
import { NotImplementedError } from '../lib/errors.js';
import type { Handler } from './handler.js';

/** Placeholder for an operation whose resource is still being built; answers 501. */
export const notImplemented =
  <K extends OperationId>(op: K): Handler<K> =>
  async () => {
    throw new NotImplementedError(op);
  };
