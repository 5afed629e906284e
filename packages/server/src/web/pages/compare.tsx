import type { ComparedTest, RunComparisonResponse, RunListItem } from '@testreport/contract';
import { StatusBadge } from '../components/status.js';
import { DataTable } from '../components/table.js';
import { duration, shortSha, when } from '../format.js';
import { Layout, type NavData } from '../layout.js';

type ComparedRun = RunComparisonResponse['run'];
const runName = (r: { id: string; branch: string | null; commitSha: string | null }) => `${r.branch ?? 'no branch'}${r.commitSha ? ` @ ${shortSha(r.commitSha)}` : ''} · ${r.id.slice(-8)}`;

const LISTS = [
  ['newFailures', 'New failures', 's-failed'],
  ['fixed', 'Fixed', 's-passed'],
  ['stillFailing', 'Still failing', 's-failed'],
  ['added', 'Added', ''],
  ['removed', 'Removed', ''],
  ['slower', 'Slower', 's-flaky'],
  ['faster', 'Faster', 's-passed'],
] as const;

function Status({ status }: { status: string | null }) {
  return status ? <StatusBadge status={status} /> : <span class="muted">absent</span>;
}

function TestRows({ tests, timed }: { tests: ComparedTest[]; timed: boolean }) {
  return (
    <DataTable head={<><th>Test</th><th>Base</th><th>This run</th><th class="num">Base duration</th><th class="num">Duration</th>{!timed && <th>Error</th>}</>}>
      {tests.map((t) => (
        <tr>
          <td>
            <a href={`/tests/${t.testId ?? t.baseTestId}`}>{t.fullTitle}</a>
            <div class="muted small mono">{t.filePath}</div>
          </td>
          <td><Status status={t.baseStatus} /></td>
          <td><Status status={t.status} /></td>
          <td class="num">{t.baseDuration === null ? '–' : duration(t.baseDuration)}</td>
          <td class="num">{t.duration === null ? '–' : duration(t.duration)}</td>
          {!timed && <td class="mono small">{t.error}</td>}
        </tr>
      ))}
    </DataTable>
  );
}

function RunRow({ label, run }: { label: string; run: ComparedRun }) {
  return (
    <tr>
      <th scope="row">{label}</th>
      <td><a href={`/runs/${run.id}`}>{runName(run)}</a></td>
      <td><StatusBadge status={run.status} /></td>
      <td class="num">{run.failedTests} failed of {run.totalTests}</td>
      <td class="num">{duration(run.duration)}</td>
      <td>{when(run.createdAt)}</td>
    </tr>
  );
}

/** `/runs/:id/compare?base=`: what changed between two runs of a project, whatever their branches. */
export function ComparePage({ nav, c }: { nav: NavData; c: RunComparisonResponse }) {
  return (
    <Layout title={`Compare ${c.run.id.slice(-8)} with ${c.base.id.slice(-8)}`} nav={nav}>
      <h1>Compare runs</h1>
      <DataTable head={<><th></th><th>Run</th><th>Status</th><th class="num">Tests</th><th class="num">Duration</th><th>Started</th></>}>
        <RunRow label="This run" run={c.run} />
        <RunRow label="Base run" run={c.base} />
      </DataTable>
      <p class="muted small">
        <a href={`/runs/${c.run.id}/compare`}>Compare with another run…</a> · <a href={`/runs/${c.base.id}/compare?base=${c.run.id}`}>Swap</a>
      </p>
      <div class="cards">
        {LISTS.map(([key, label, cls]) => (
          <div class="card">
            <span class="muted small"><a href={`#${key}`}>{label}</a></span>
            <b class={cls}>{c[key].total}</b>
          </div>
        ))}
      </div>
      {LISTS.map(([key, label]) => (
        <>
          <h2 id={key}>{label} ({c[key].total})</h2>
          {key === 'slower' || key === 'faster' ? <p class="muted small">Ran in both runs and took at least 20% and 100 ms {key === 'slower' ? 'longer' : 'less'}; biggest change first.</p> : null}
          {c[key].total === 0 ? <p class="muted">None.</p> : <TestRows tests={c[key].items} timed={key === 'slower' || key === 'faster'} />}
          {c[key].total > c[key].items.length && <p class="muted">and {c[key].total - c[key].items.length} more.</p>}
        </>
      ))}
    </Layout>
  );
}

/** `/runs/:id/compare` without a base: pick any run of the project, of any branch. */
export function ComparePickPage(props: { nav: NavData; runId: string; runs: RunListItem[]; branches: string[]; branch?: string }) {
  const path = `/runs/${props.runId}/compare`;
  return (
    <Layout title="Compare with…" nav={props.nav}>
      <h1>Compare run {props.runId.slice(-8)} with…</h1>
      <form class="filters" method="get" action={path} role="search" aria-label="Pick runs of a branch">
        <label>
          Branch
          <select name="branch">
            <option value="">All branches</option>
            {props.branches.map((b) => <option value={b} selected={props.branch === b}>{b}</option>)}
          </select>
        </label>
        <button type="submit">Show runs</button>
      </form>
      <form class="filters" method="get" action={path} aria-label="Compare with a run id">
        <label>
          Run id
          <input name="base" required />
        </label>
        <button type="submit">Compare</button>
      </form>
      <DataTable head={<><th>Run</th><th>Status</th><th class="num">Failed</th><th class="num">Tests</th><th>Started</th><th></th></>}>
        {props.runs.filter((r) => r.id !== props.runId).map((r) => (
          <tr>
            <td><a href={`/runs/${r.id}`}>{runName(r)}</a></td>
            <td><StatusBadge status={r.status} /></td>
            <td class="num">{r.failedTests}</td>
            <td class="num">{r.totalTests}</td>
            <td>{when(r.createdAt)}</td>
            <td><a href={`${path}?base=${r.id}`}>Compare</a></td>
          </tr>
        ))}
      </DataTable>
    </Layout>
  );
}
