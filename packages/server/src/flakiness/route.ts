import type { Handlers } from '../http/handler.js';
import { notImplemented } from '../http/notImplemented.js';

export const flakinessHandlers: Handlers<'flakiness.list' | 'flakiness.update'> = {
  'flakiness.list': notImplemented('flakiness.list'),
  'flakiness.update': notImplemented('flakiness.update'),
};
