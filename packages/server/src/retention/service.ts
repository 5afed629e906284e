import type { BackgroundJob, Deps } from '../deps.js';

// Placeholder: the results issue builds the retention sweeper.
export function createRetentionService(deps: Deps): { job?: BackgroundJob } {
  void deps;
  return {};
}
