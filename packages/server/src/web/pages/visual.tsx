import type { Artifact, Run, Snapshot } from '@testreport/contract';
import type { ReviewFile } from '../../baselines/service.js';
import { ImageComparison } from '../components/imageDiff.js';
import { StatusBadge } from '../components/status.js';
import { when } from '../format.js';
import { Layout, type NavData } from '../layout.js';

interface Props {
  nav: NavData;
  run: Run;
  files: ReviewFile[];
  artifacts: Map<string, Artifact>;
  /** Member role or above (policy `baselines`): viewers see the snapshots, no buttons. */
  canAccept: boolean;
}

const Hidden = ({ name, value }: { name: string; value: string }) => <input type="hidden" name={name} value={value} />;

function SnapshotCard({ s, testId, runId, canAccept, artifacts }: { s: Snapshot; testId: string; runId: string; canAccept: boolean; artifacts: Map<string, Artifact> }) {
  const a = (id: string | undefined) => (id ? artifacts.get(id) : undefined);
  const c = { name: s.name, expected: a(s.expected), actual: a(s.actual), diff: a(s.diff) };
  const back = `/runs/${runId}/visual#snap-${testId}-${s.name}`;
  return (
    <div class="snapshot" id={`snap-${testId}-${s.name}`} data-snapshot tabindex={-1}>
      <p class="small">
        <code>{s.snapshotPath}</code>
        {s.retry !== null && <span class="muted"> · try {s.retry + 1}</span>}
        {' · '}
        {s.acceptance ? <b data-accepted>accepted by {s.acceptance.by} at {when(s.acceptance.at)}</b> : <span class="muted">not accepted</span>}
      </p>
      <ImageComparison c={c} missingBaseline={!s.diff} />
      {canAccept && (
        <form class="inline" method="post" action={`/runs/${runId}/visual/${s.acceptance ? 'undo' : 'accept'}`} data-snapshot-action={s.acceptance ? 'undo' : 'accept'}>
          <Hidden name="testId" value={testId} />
          <Hidden name="name" value={s.name} />
          <Hidden name="back" value={back} />
          <button type="submit">{s.acceptance ? 'Undo' : 'Accept'}</button>
        </form>
      )}
    </div>
  );
}

/** `/runs/:id/visual`: every failed or missing snapshot of the run, grouped by test file (issue 28). */
export function VisualPage({ nav, run, files, artifacts, canAccept }: Props) {
  const count = files.reduce((n, f) => n + f.tests.reduce((m, t) => m + t.snapshots.length, 0), 0);
  const accepted = files.reduce((n, f) => n + f.tests.reduce((m, t) => m + t.snapshots.filter((s) => s.acceptance).length, 0), 0);
  return (
    <Layout title={`Visual review · ${run.runTitle || run.id}`} nav={nav}>
      <div data-visual-review>
        <p class="small"><a href={`/runs/${run.id}`}>← Run {run.runTitle || run.id.slice(-8)}</a> <StatusBadge status={run.status} /></p>
        <h1>Visual review</h1>
        <p>
          {count} snapshot{count === 1 ? '' : 's'}, {accepted} accepted. Accepted actuals become baselines with <code>reporter baselines pull --run {run.id}</code>.
          {canAccept && <span class="muted small"> Keys: j / k next and previous snapshot, a accept (or undo) it.</span>}
        </p>
        {count === 0 && <p class="muted">No failed or missing screenshot comparisons in this run.</p>}
        {files.map((f) => (
          <section class="visual-file" aria-label={`Snapshots of ${f.filePath ?? 'tests without a file'}`}>
            <h2>
              <code>{f.filePath ?? '(no file)'}</code>
              {canAccept && f.filePath && (
                <form class="inline" method="post" action={`/runs/${run.id}/visual/accept`}>
                  <Hidden name="file" value={f.filePath} />
                  <Hidden name="back" value={`/runs/${run.id}/visual`} />{' '}
                  <button type="submit">Accept all in this file</button>
                </form>
              )}
            </h2>
            {f.tests.map(({ test, snapshots }) => (
              <article>
                <h3><a href={`/tests/${test.id}`}>{test.fullTitle}</a></h3>
                {snapshots.map((s) => <SnapshotCard s={s} testId={test.id} runId={run.id} canAccept={canAccept} artifacts={artifacts} />)}
              </article>
            ))}
          </section>
        ))}
      </div>
    </Layout>
  );
}
