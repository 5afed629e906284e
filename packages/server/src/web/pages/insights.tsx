import { INSIGHT_WINDOWS, REGRESSION_MIN_MS, REGRESSION_MIN_RATIO, type Insights } from '@testreport/contract';
import type { Child } from 'hono/jsx';
import { DurationChart, PassRateChart } from '../components/dayCharts.js';
import { BranchSelect } from '../components/historyFilters.js';
import { DataTable } from '../components/table.js';
import { duration, percent } from '../format.js';
import { Layout, type NavData } from '../layout.js';

export type InsightsFilters = { days: string; branch?: string; owner?: string };


type Item = Insights['slowest'][number];

function TestCell({ t }: { t: Pick<Item, 'testId' | 'fullTitle' | 'filePath'> }) {
  return (
    <td>
      <a href={`/tests/${t.testId}`}>{t.fullTitle}</a>
      {t.filePath && <div class="muted small mono">{t.filePath}</div>}
    </td>
  );
}

function Section({ id, title, help, empty, count, children }: { id: string; title: string; help: string; empty: string; count: number; children: Child }) {
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      <p class="muted small">{help}</p>
      {count === 0 ? <p class="notice">{empty}</p> : children}
    </section>
  );
}

/** `/projects/:id/insights`: trends and the tests that cost the most over 7, 30 or 90 days. */
export function InsightsPage(props: { nav: NavData; projectId: string; insights: Insights; branches: string[]; filters: InsightsFilters }) {
  const { insights: ins, filters } = props;
  const path = `/projects/${props.projectId}/insights`;
  const runs = ins.trend.reduce((n, d) => n + d.runs, 0);
  const scope = [ins.branch ? `branch ${ins.branch}` : 'all branches', ins.owner ? `tests owned by ${ins.owner}` : null].filter(Boolean).join(', ');
  const owned = ins.owner ? ` owned by ${ins.owner}` : '';
  return (
    <Layout title="Insights" nav={props.nav}>
      <h1>Insights</h1>
      <p class="muted">
        {ins.from} to {ins.to} (UTC), {scope}. Retries of one run count once, by their final outcome.
        {ins.owner && ' The pass rate and the lists count only those tests; runs and run durations count every run.'}
      </p>
      <form class="filters" method="get" action={path} role="search" aria-label="Insights window and filters">
        <label>
          Window
          <select name="days">
            {INSIGHT_WINDOWS.map((d) => <option value={String(d)} selected={filters.days === String(d)}>{`the last ${d} days`}</option>)}
          </select>
        </label>
        <BranchSelect branches={props.branches} selected={filters.branch} />
        <label>
          Owner
          <input type="text" name="owner" placeholder="@acme/checkout" value={filters.owner ?? ''} maxlength={200} />
        </label>
        <button type="submit">Show</button>
      </form>

      {runs === 0 ? (
        <p class="notice">
          No runs {ins.branch ? `on ${ins.branch} ` : ''}in the last {ins.days} days. Upload results with the Playwright reporter or <code>reporter upload</code> and they show here
          the same minute; or pick a longer window{ins.branch ? ' or all branches' : ''}.
        </p>
      ) : (
        <>
          <div class="cards">
            <div class="card"><span class="muted small">Runs</span><b>{runs}</b></div>
            <div class="card"><span class="muted small">Days with runs</span><b>{ins.trend.filter((d) => d.runs > 0).length} / {ins.days}</b></div>
            <div class="card"><span class="muted small">Regressions</span><b class={ins.regressions.length ? 's-failed' : undefined}>{ins.regressions.length}</b></div>
          </div>
          <div class="day-charts">
            <PassRateChart days={ins.trend} />
            <DurationChart days={ins.trend} />
          </div>
          <details class="group">
            <summary>Figures per day</summary>
            <DataTable label="Figures per day" head={<><th>Day</th><th class="num">Runs</th><th class="num">Pass rate</th><th class="num">Median duration</th></>}>
              {ins.trend.filter((d) => d.runs > 0).map((d) => (
                <tr>
                  <td>{d.date}</td>
                  <td class="num">{d.runs}</td>
                  <td class="num">{d.passRate === null ? '–' : percent(d.passRate)}</td>
                  <td class="num">{duration(d.medianDuration)}</td>
                </tr>
              ))}
            </DataTable>
          </details>
        </>
      )}

      <Section id="regressions" title="Duration regressions" count={ins.regressions.length}
        help={`Median duration in these ${ins.days} days against the ${ins.days} days before, at least ${REGRESSION_MIN_RATIO * 100}% and ${REGRESSION_MIN_MS} ms slower; biggest growth first.`}
        empty={`No test${owned} got slower. A test shows here when its median grew by ${REGRESSION_MIN_RATIO * 100}% and ${REGRESSION_MIN_MS} ms or more; it needs results in both windows.`}>
        <DataTable label="Duration regressions" head={<><th>Test</th><th class="num">p50 before → after</th><th class="num">Change</th><th class="num">Results</th></>}>
          {ins.regressions.map((t) => (
            <tr>
              <TestCell t={t} />
              <td class="num">{duration(t.p50Before)} → {duration(t.p50After)}</td>
              <td class="num s-failed">+{percent(t.change)}</td>
              <td class="num">{t.results}</td>
            </tr>
          ))}
        </DataTable>
      </Section>

      <Section id="slowest" title="Slowest tests" count={ins.slowest.length}
        help="Highest median (p50) duration first; skipped results left out."
        empty={`No timed results${owned} in this window.`}>
        <DataTable label="Slowest tests" head={<><th>Test</th><th class="num">p50</th><th class="num">p95</th><th class="num">Results</th></>}>
          {ins.slowest.map((t) => (
            <tr>
              <TestCell t={t} />
              <td class="num">{duration(t.p50)}</td>
              <td class="num">{duration(t.p95)}</td>
              <td class="num">{t.results}</td>
            </tr>
          ))}
        </DataTable>
      </Section>

      <Section id="failing" title="Most failing" count={ins.mostFailing.length}
        help="Highest failure rate first, then most failures: results that ended failed ÷ results of the test."
        empty={`No test${owned} failed in these ${ins.days} days.`}>
        <DataTable label="Most failing tests" head={<><th>Test</th><th class="num">Failure rate</th><th class="num">Failed / results</th></>}>
          {ins.mostFailing.map((t) => (
            <tr>
              <TestCell t={t} />
              <td class="num s-failed">{percent(t.failureRate)}</td>
              <td class="num">{t.failures} / {t.results}</td>
            </tr>
          ))}
        </DataTable>
      </Section>

      <Section id="flakiest" title="Flakiest" count={ins.flakiest.length}
        help="Highest flaky rate first: results that passed only on a retry (or in a CI re-run) ÷ results of the test."
        empty={`No test${owned} passed only on a retry in these ${ins.days} days.`}>
        <DataTable label="Flakiest tests" head={<><th>Test</th><th class="num">Flaky rate</th><th class="num">Flaky / results</th></>}>
          {ins.flakiest.map((t) => (
            <tr>
              <TestCell t={t} />
              <td class="num s-flaky">{percent(t.flakyRate)}</td>
              <td class="num">{t.flaky} / {t.results}</td>
            </tr>
          ))}
        </DataTable>
      </Section>
    </Layout>
  );
}
