import type { Deps } from '../deps.js';

// Placeholder: filled in by the issue that builds this resource.
export function createFlakinessService(deps: Deps) {
  void deps;
  return {};
}
