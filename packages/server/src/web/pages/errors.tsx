import type { ErrorGroup, ErrorGroupDetail } from '@testreport/contract';
import { BranchSelect, WindowSelect } from '../components/historyFilters.js';
import { Pager } from '../components/pager.js';
import { daysBetween, Sparkline } from '../components/sparkline.js';
import { DataTable } from '../components/table.js';
import { shortSha, when } from '../format.js';
import { Layout, type NavData } from '../layout.js';

export type ErrorFilters = { branch?: string; q?: string; days?: string };

function Seen({ s }: { s: ErrorGroup['firstSeen'] }) {
  return (
    <>
      <a href={`/runs/${s.runId}`}>{when(s.at)}</a>
      <div class="muted small">{[s.branch, s.commitSha && shortSha(s.commitSha)].filter(Boolean).join(' @ ')}</div>
    </>
  );
}

/** `/projects/:id/errors`: error groups across runs, most recently seen first. */
export function ErrorsPage(props: {
  nav: NavData; projectId: string; groups: ErrorGroup[]; total: number; daily: Map<string, Map<string, number>>; days: string[];
  branches: string[]; filters: ErrorFilters; page: number; pageSize: number;
}) {
  const { filters } = props;
  const path = `/projects/${props.projectId}/errors`;
  return (
    <Layout title="Errors" nav={props.nav}>
      <h1>Errors</h1>
      <p class="muted">Failures grouped by error across runs: same message once numbers, ids, temp paths and quoted values are masked, in the same file.</p>
      <form class="filters" method="get" action={path} role="search" aria-label="Filter errors">
        <BranchSelect branches={props.branches} selected={filters.branch} />
        <WindowSelect label="Seen in" selected={filters.days} />
        <label>
          Message contains
          <input type="search" name="q" value={filters.q ?? ''} />
        </label>
        <button type="submit">Filter</button>
      </form>
      {props.groups.length === 0 ? (
        <p class="muted">No errors match.</p>
      ) : (
        <DataTable head={<><th>Error</th><th>Last {props.days.length} days</th><th class="num">Occurrences</th><th class="num">Tests</th><th class="num">Runs</th><th>First seen</th><th>Last seen</th></>}>
          {props.groups.map((g) => (
            <tr>
              <td>
                <a href={`${path}/${g.fingerprint}`}><code>{g.message || '(no message)'}</code></a>
                <div class="muted small mono">{g.filePath}</div>
              </td>
              <td><Sparkline days={props.days} counts={props.daily.get(g.fingerprint) ?? new Map()} label={`Occurrences per day of ${g.message}`} /></td>
              <td class="num">{g.occurrences}</td>
              <td class="num">{g.tests}</td>
              <td class="num">{g.runs}</td>
              <td><Seen s={g.firstSeen} /></td>
              <td><Seen s={g.lastSeen} /></td>
            </tr>
          ))}
        </DataTable>
      )}
      <Pager path={path} query={filters} page={props.page} pageSize={props.pageSize} total={props.total} label="errors" />
    </Layout>
  );
}

/** `/projects/:id/errors/:fingerprint`: one group, its first occurrence, its days and the tests it hits. */
export function ErrorPage({ nav, projectId, g }: { nav: NavData; projectId: string; g: ErrorGroupDetail }) {
  const days = g.daily.length ? daysBetween(g.daily[0].date, g.daily[g.daily.length - 1].date) : [];
  return (
    <Layout title={`Error ${g.fingerprint}`} nav={nav}>
      <p class="small"><a href={`/projects/${projectId}/errors`}>← Errors</a></p>
      <h1><code>{g.message || '(no message)'}</code></h1>
      <dl class="meta">
        <dt>File</dt><dd class="mono">{g.filePath ?? '–'}</dd>
        <dt>Fingerprint</dt><dd class="mono">{g.fingerprint}</dd>
        <dt>First seen</dt>
        <dd>
          <a href={`/runs/${g.firstSeen.runId}`}>{when(g.firstSeen.at)}</a> on {g.firstSeen.branch ?? 'no branch'}
          {g.firstSeen.commitSha && <> at commit <code>{shortSha(g.firstSeen.commitSha)}</code></>} · <a href={`/tests/${g.firstSeen.testId}`}>the first failing result</a>
        </dd>
        <dt>Last seen</dt>
        <dd><a href={`/runs/${g.lastSeen.runId}`}>{when(g.lastSeen.at)}</a> on {g.lastSeen.branch ?? 'no branch'}</dd>
        <dt>Occurrences</dt><dd>{g.occurrences} in {g.runs} run{g.runs === 1 ? '' : 's'}, {g.tests} test{g.tests === 1 ? '' : 's'}</dd>
      </dl>
      <h2>Per day</h2>
      <Sparkline days={days} counts={new Map(g.daily.map((d) => [d.date, d.occurrences]))} width={Math.min(900, Math.max(200, days.length * 12))} height={60} label={`Occurrences per day from ${days[0]} to ${days[days.length - 1]}`} />
      <h2>Tests it hits ({g.testCases.length})</h2>
      <DataTable head={<><th>Test</th><th class="num">Occurrences</th><th>Last run</th></>}>
        {g.testCases.map((t) => (
          <tr>
            <td><a href={`/tests/${t.testId}`}>{t.fullTitle}</a><div class="muted small mono">{t.filePath}</div></td>
            <td class="num">{t.occurrences}</td>
            <td><a href={`/runs/${t.lastRunId}`}>{t.lastRunId.slice(-8)}</a></td>
          </tr>
        ))}
      </DataTable>
    </Layout>
  );
}
