import type { Handlers } from '../http/handler.js';
import { notImplemented } from '../http/notImplemented.js';

export const suitesHandlers: Handlers<'testSuites.upsert' | 'testSuites.list'> = {
  'testSuites.upsert': notImplemented('testSuites.upsert'),
  'testSuites.list': notImplemented('testSuites.list'),
};
