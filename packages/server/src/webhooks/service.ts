import type { BackgroundJob, Deps } from '../deps.js';

// Placeholder: the webhooks issue builds CRUD, the outbox and the delivery worker.
export function createWebhookService(deps: Deps): { job?: BackgroundJob } {
  void deps;
  return {};
}
