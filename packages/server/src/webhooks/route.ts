import type { Handlers } from '../http/handler.js';

export const webhooksHandlers: Handlers<'webhooks.list' | 'webhooks.create' | 'webhooks.get' | 'webhooks.update' | 'webhooks.delete' | 'webhooks.deliveries' | 'webhooks.test'> = {
  'webhooks.list': ({ principal, services, query }) => services.webhooks.list(principal, query.projectId),
  'webhooks.create': ({ principal, services, body }) => services.webhooks.create(principal, body),
  'webhooks.get': ({ principal, services, params }) => services.webhooks.get(principal, params.id),
  'webhooks.update': ({ principal, services, params, body }) => services.webhooks.update(principal, params.id, body),
  'webhooks.delete': ({ principal, services, params }) => services.webhooks.remove(principal, params.id),
  'webhooks.deliveries': ({ principal, services, params, query }) => services.webhooks.deliveries(principal, params.id, query),
  'webhooks.test': ({ principal, services, params }) => services.webhooks.test(principal, params.id),
};
