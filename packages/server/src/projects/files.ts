import { projectPrefix } from '../artifacts/store.js';
import type { Deps } from '../deps.js';

/**
 * Deletes the artifact files of deleted projects. Runs after the DB delete has committed: the
 * rows are the truth, so a store failure leaves orphaned files (logged for the operator) rather
 * than failing a delete the user already sees done.
 */
export async function removeProjectFiles(deps: Pick<Deps, 'store' | 'logger'>, projectIds: string[]) {
  for (const id of projectIds) {
    try {
      await deps.store.deletePrefix(projectPrefix(id));
    } catch (err) {
      deps.logger.error(`artifact files of deleted project ${id} could not be removed; delete ${projectPrefix(id)} by hand`, err);
    }
  }
}
