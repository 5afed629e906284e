import type { FlakinessEntry } from '@testreport/contract';
import { Pager } from '../components/pager.js';
import { percent, when } from '../format.js';
import { Layout, type NavData } from '../layout.js';
import { DataTable } from '../components/table.js';
import { Owners } from '../components/quarantineTrail.js';

export type FlakyFilters = { quarantined?: string; minScore?: string; owner?: string };

export function FlakyPage(props: {
  nav: NavData;
  entries: FlakinessEntry[];
  summary: { totalFlakyTests: number; quarantinedTests: number; averageFlakinessScore: number };
  total: number;
  filters: FlakyFilters;
  page: number;
  pageSize: number;
  canQuarantine: boolean;
  back: string;
}) {
  const projectId = props.nav.current!.project.id;
  const path = `/projects/${projectId}/flaky`;
  return (
    <Layout title="Flaky tests" nav={props.nav}>
      <h1>Flaky tests</h1>
      <div class="cards">
        <div class="card"><span class="muted small">Flaky tests</span><b class="s-flaky">{props.summary.totalFlakyTests}</b></div>
        <div class="card"><span class="muted small">Quarantined</span><b>{props.summary.quarantinedTests}</b></div>
        <div class="card"><span class="muted small">Average score</span><b>{percent(props.summary.averageFlakinessScore * 100)}</b></div>
      </div>
      <form class="filters" method="get" action={path} role="search" aria-label="Filter flaky tests">
        <label>
          Minimum score
          <select name="minScore">
            {[['', 'any flakiness'], ['0.1', '≥ 10%'], ['0.2', '≥ 20%'], ['0.5', '≥ 50%']].map(([v, l]) => (
              <option value={v} selected={(props.filters.minScore ?? '') === v}>{l}</option>
            ))}
          </select>
        </label>
        <label>
          Quarantine
          <select name="quarantined">
            {[['', 'all'], ['true', 'quarantined'], ['false', 'not quarantined']].map(([v, l]) => (
              <option value={v} selected={(props.filters.quarantined ?? '') === v}>{l}</option>
            ))}
          </select>
        </label>
        <label>
          Owner
          <input type="text" name="owner" placeholder="@acme/checkout" value={props.filters.owner ?? ''} maxlength={200} />
        </label>
        <button type="submit">Filter</button>
      </form>
      {props.entries.length === 0 ? (
        <p class="notice">No flaky tests{props.filters.owner ? ` owned by ${props.filters.owner}` : ''}. A test is flaky when it failed and then passed on retry, or flipped between runs of the same commit.</p>
      ) : (
        <DataTable
          head={
            <>
              <th>Test</th>
              <th class="num">Score</th>
              <th class="num">Flaky / runs</th>
              <th class="hide-narrow">Last flaky</th>
              <th>Quarantine</th>
            </>
          }
        >
          {props.entries.map((e) => (
            <tr>
              <td>
                <a href={`/tests/${e.testId}`}>{e.testTitle}</a>
                {/* The project (with several) and describe blocks: two tests may share a title. */}
                {e.fullTitle !== e.testTitle && <div class="small">{e.fullTitle.split(' > ').slice(0, -1).join(' › ')}</div>}
                <div class="small muted mono">{e.filePath}</div>
                <Owners owners={e.owners} />
              </td>
              <td class="num">{percent(e.flakinessScore * 100)}</td>
              <td class="num">
                {e.flakyRuns} / {e.totalRuns}
              </td>
              <td class="hide-narrow">{when(e.lastFlakyAt)}</td>
              <td>
                {e.isQuarantined ? <span class="badge s-flaky">quarantined</span> : <span class="muted">no</span>}
                {e.isBroken && <> <span class="badge s-failed" title="failed in each of its last results on the default branch: broken, not flaky; never auto-quarantined">broken</span></>}
                {' '}<a class="small" href={`/tests/${e.testId}#quarantine-history`}>history</a>
                {props.canQuarantine && (
                  <form class="inline" method="post" action={`${path}/quarantine`}>
                    <input type="hidden" name="testId" value={e.testId} />
                    <input type="hidden" name="quarantined" value={e.isQuarantined ? 'false' : 'true'} />
                    <input type="hidden" name="back" value={props.back} />{' '}
                    <button type="submit" aria-label={`${e.isQuarantined ? 'Release' : 'Quarantine'} ${e.testTitle}`}>
                      {e.isQuarantined ? 'Release' : 'Quarantine'}
                    </button>
                  </form>
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <Pager path={path} query={props.filters} page={props.page} pageSize={props.pageSize} total={props.total} label="tests" />
    </Layout>
  );
}
