import type { RunOverviewService, TrendPoint } from '../../runs/overview.js';
import { TrendChart } from '../components/charts.js';
import { Pager } from '../components/pager.js';
import { Counts, StatusBadge } from '../components/status.js';
import { duration, firstLine, percent, safeHref, shortSha, when } from '../format.js';
import { Layout, type NavData } from '../layout.js';
import { DataTable } from '../components/table.js';

type RunPage = Awaited<ReturnType<RunOverviewService['browse']>>;
export type RunFilters = { branch?: string; status?: string; tag?: string; q?: string };

const RUN_STATUSES = ['running', 'passed', 'failed', 'cancelled'];

export function RunsPage(props: { nav: NavData; runs: RunPage; trend: TrendPoint[]; branches: string[]; filters: RunFilters; page: number; pageSize: number }) {
  const { nav, runs, filters } = props;
  const path = `/projects/${nav.current!.project.id}/runs`;
  return (
    <Layout title={`Runs · ${nav.current!.project.name}`} nav={nav}>
      <h1>Runs</h1>
      <TrendChart points={props.trend} />
      <form class="filters" method="get" action={path} role="search" aria-label="Filter runs">
        <label>
          Branch
          <select name="branch">
            <option value="">All branches</option>
            {props.branches.map((b) => (
              <option value={b} selected={filters.branch === b}>{b}</option>
            ))}
          </select>
        </label>
        <label>
          Status
          <select name="status">
            <option value="">Any status</option>
            {RUN_STATUSES.map((s) => (
              <option value={s} selected={filters.status === s}>{s}</option>
            ))}
          </select>
        </label>
        <label>
          Tag
          <input name="tag" value={filters.tag ?? ''} size={10} />
        </label>
        <label>
          Search
          <input type="search" name="q" value={filters.q ?? ''} placeholder="title, commit, branch" />
        </label>
        <button type="submit">Filter</button>
        {(filters.branch || filters.status || filters.tag || filters.q) && <a href={path}>Clear</a>}
      </form>
      <div data-live-region>
        {runs.data.length === 0 ? (
          <p class="notice">No runs match. Runs appear here when the reporter or <code>reporter upload</code> sends results.</p>
        ) : (
          <DataTable
            head={
              <>
                <th>Run</th>
                <th>Status</th>
                <th>Branch · commit</th>
                <th class="num">Tests</th>
                <th class="num">Pass rate</th>
                <th class="num hide-narrow">Duration</th>
                <th class="hide-narrow">Started</th>
              </>
            }
          >
            {runs.data.map((r) => (
              <tr data-running={r.status === 'running' ? '' : undefined}>
                <td>
                  <a href={`/runs/${r.id}`}>{r.runTitle || `Run ${r.id.slice(-8)}`}</a>
                  {r.tags.length > 0 && <div class="small muted">{r.tags.map((t) => `#${t}`).join(' ')}</div>}
                  {safeHref(r.ciBuildUrl) && (
                    <div class="small">
                      <a href={safeHref(r.ciBuildUrl)} rel="noopener noreferrer">CI build</a>
                    </div>
                  )}
                </td>
                <td><StatusBadge status={r.status} /></td>
                <td>
                  {r.branch ?? <span class="muted">no branch</span>}
                  {r.commitSha && (
                    <div class="small">
                      <code>{shortSha(r.commitSha)}</code> <span class="muted hide-narrow">{firstLine(r.commitMessage, 60)}</span>
                    </div>
                  )}
                </td>
                <td class="num">
                  {r.totalTests}
                  <div class="small"><Counts passed={r.passedTests} failed={r.failedTests} flaky={r.flakyTests} skipped={r.skippedTests} /></div>
                </td>
                <td class="num">{percent(r.passRate)}</td>
                <td class="num hide-narrow">{duration(r.duration)}</td>
                <td class="hide-narrow">{when(r.createdAt)}</td>
              </tr>
            ))}
          </DataTable>
        )}
        {runs.data.length > 0 && (
          <p class="small muted legend">
            Tests column: <span class="s-passed">✓</span> passed, <span class="s-failed">✗</span> failed, <span class="s-flaky">~</span> flaky, <span class="s-skipped">–</span> skipped.
          </p>
        )}
      </div>
      <Pager path={path} query={filters} page={props.page} pageSize={props.pageSize} total={runs.total} label="runs" />
    </Layout>
  );
}
