import type { ArtifactStore } from './store.js';

// Placeholder: the artifacts issue builds the local-disk store.
export function createLocalArtifactStore(root: string): ArtifactStore {
  const fail = async (): Promise<never> => {
    throw new Error(`artifact store at ${root} is not implemented yet`);
  };
  return { put: fail, get: fail, size: fail, delete: fail, deletePrefix: fail };
}
