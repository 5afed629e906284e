import type { Handlers } from '../http/handler.js';
import { notImplemented } from '../http/notImplemented.js';

export const artifactsHandlers: Handlers<'artifacts.upload' | 'artifacts.list'> = {
  'artifacts.upload': notImplemented('artifacts.upload'),
  'artifacts.list': notImplemented('artifacts.list'),
};
