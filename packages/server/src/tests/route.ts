import type { Handlers } from '../http/handler.js';
import { notImplemented } from '../http/notImplemented.js';

export const testsHandlers: Handlers<'tests.create' | 'tests.createBatch' | 'tests.list' | 'tests.get' | 'tests.steps' | 'tests.history'> = {
  'tests.create': notImplemented('tests.create'),
  'tests.createBatch': notImplemented('tests.createBatch'),
  'tests.list': notImplemented('tests.list'),
  'tests.get': notImplemented('tests.get'),
  'tests.steps': notImplemented('tests.steps'),
  'tests.history': notImplemented('tests.history'),
};
