import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import type { Artifact, ArtifactListQuery, UploadFields } from '@testreport/contract';
import type { Principal } from '../authz/principal.js';
import type { ArtifactsTable } from '../db/schema.js';
import type { Deps } from '../deps.js';
import { NotFoundError } from '../lib/errors.js';
import { newId } from '../lib/ids.js';
import { sanitizeFileName } from './fileName.js';
import { createArtifactInspector } from './inspectStream.js';
import { createArtifactRepo } from './repo.js';
import { signArtifactUrl } from './signing.js';
import { runPrefix } from './store.js';

export const artifactKey = (projectId: string, runId: string, artifactId: string) => `${runPrefix(projectId, runId)}${artifactId}`;

export function createArtifactService(deps: Deps) {
  const { config, store, authz } = deps;
  const repo = createArtifactRepo(deps.db);

  const toArtifact = (r: ArtifactsTable): Artifact => ({
    id: r.id,
    runId: r.run_id,
    testId: r.test_id,
    retry: r.retry ?? null,
    type: r.type as Artifact['type'],
    fileName: r.file_name,
    fileSize: r.file_size,
    mimeType: r.mime_type,
    ...signArtifactUrl(config, r.id),
    createdAt: r.created_at,
  });

  /** The run and test named by an upload or a listing must belong together; a mismatch is 404 (nothing leaks). */
  async function checkRunAndTest(projectId: string, runId: string, testId: string | undefined) {
    const run = await repo.runProject(runId);
    if (!run || run.project_id !== projectId) throw new NotFoundError('Run');
    if (testId) {
      const test = await repo.testRun(testId);
      if (!test || test.run_id !== runId) throw new NotFoundError('Test');
    }
  }

  return {
    /** Authorizes before a byte is stored; the caller streams the file only after this resolves. */
    async authorizeUpload(principal: Principal, fields: { type: UploadFields['type']; runId: string; projectId: string; testId?: string }) {
      await authz.project(principal, fields.projectId, 'report', 'param');
      await checkRunAndTest(fields.projectId, fields.runId, fields.testId);
    },

    /**
     * Streams the file into the store through the format and size checks, and returns the row that
     * will name it; the caller `commit`s the row or `discard`s the file. On any failure the partial
     * file is gone (the store writes to a temp file) and no row exists.
     */
    async receive(fields: { type: UploadFields['type']; runId: string; projectId: string; testId?: string; retry?: number; snapshotPath?: string }, file: Readable, clientFileName: string | undefined): Promise<ArtifactsTable> {
      const id = newId();
      const key = artifactKey(fields.projectId, fields.runId, id);
      const inspector = createArtifactInspector(fields.type);
      // A failure on either side destroys the inspector, so store.put rejects with it; awaiting store.put
      // alone means the answer goes out only after the partial file has been removed.
      pipeline(file, inspector.stream).catch(() => {});
      const { size } = await store.put(key, inspector.stream);
      const mimeType = inspector.mimeType();
      const row: ArtifactsTable = {
        id,
        project_id: fields.projectId,
        run_id: fields.runId,
        test_id: fields.testId ?? null,
        retry: fields.retry ?? null,
        snapshot_path: fields.snapshotPath ?? null,
        type: fields.type,
        file_name: sanitizeFileName(clientFileName, `${fields.type}-${id}`),
        file_size: size,
        mime_type: mimeType,
        storage_key: key,
        sha256: inspector.sha256(),
        created_at: config.now().toISOString(),
      };
      return row;
    },

    /** What an upload asked for, file bytes included: an Idempotency-Key repeat must match it (15.7). */
    digest: (row: ArtifactsTable) => JSON.stringify([row.project_id, row.run_id, row.test_id, row.type, row.file_name, row.sha256, ...(row.retry == null ? [] : [row.retry]), ...(row.snapshot_path == null ? [] : [row.snapshot_path])]),

    /** Names the received file; in the caller's transaction when there is one (with the stored response). */
    async commit(row: ArtifactsTable): Promise<Artifact> {
      await repo.insert(row);
      return toArtifact(row);
    },

    /** Drops a received file no row will name (a replay, or the run was deleted while it streamed in). */
    discard: (row: ArtifactsTable) => store.delete(row.storage_key),

    async list(principal: Principal, q: ArtifactListQuery): Promise<{ data: Artifact[] }> {
      const run = await repo.runProject(q.runId);
      if (!run) throw new NotFoundError('Run');
      await authz.project(principal, run.project_id, 'read', 'resource', 'run');
      await checkRunAndTest(run.project_id, q.runId, q.testId);
      return { data: (await repo.list(q.runId, q.testId)).map(toArtifact) };
    },

    /** Start-up: removes partial uploads and files no row names, when the store can list its files. */
    async sweepOrphans(): Promise<number> {
      return (await store.sweep?.((keys) => repo.storedKeys(keys)))?.removed ?? 0;
    },

    /** For the storage route: the row behind a verified signed URL. */
    find: (id: string) => repo.find(id),
  };
}
export type ArtifactService = ReturnType<typeof createArtifactService>;
