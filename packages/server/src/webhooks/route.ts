import type { Handlers } from '../http/handler.js';
import { notImplemented } from '../http/notImplemented.js';

export const webhooksHandlers: Handlers<'webhooks.list' | 'webhooks.create' | 'webhooks.get' | 'webhooks.update' | 'webhooks.delete' | 'webhooks.deliveries' | 'webhooks.test'> = {
  'webhooks.list': notImplemented('webhooks.list'),
  'webhooks.create': notImplemented('webhooks.create'),
  'webhooks.get': notImplemented('webhooks.get'),
  'webhooks.update': notImplemented('webhooks.update'),
  'webhooks.delete': notImplemented('webhooks.delete'),
  'webhooks.deliveries': notImplemented('webhooks.deliveries'),
  'webhooks.test': notImplemented('webhooks.test'),
};
