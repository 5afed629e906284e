import type { Handlers } from '../http/handler.js';
import { notImplemented } from '../http/notImplemented.js';

export const runsHandlers: Handlers<'runs.create' | 'runs.list' | 'runs.get' | 'runs.update' | 'runs.delete'> = {
  'runs.create': notImplemented('runs.create'),
  'runs.list': notImplemented('runs.list'),
  'runs.get': notImplemented('runs.get'),
  'runs.update': notImplemented('runs.update'),
  'runs.delete': notImplemented('runs.delete'),
};
