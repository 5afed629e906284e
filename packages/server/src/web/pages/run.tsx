import type { Run, Shard } from '@testreport/contract';
import { ShardTable } from '../components/shards.js';
import type { CaseOutcome, ErrorGroup, RunComparison } from '../../runs/comparison.js';
import type { RunOverviewService } from '../../runs/overview.js';
import type { FirstSeen } from '../../errorGroups/service.js';
import { Pager } from '../components/pager.js';
import { StatusBadge } from '../components/status.js';
import { SuiteTree } from '../components/suiteTree.js';
import { duration, firstLine, percent, safeHref, shortSha, when } from '../format.js';
import { Layout, type NavData } from '../layout.js';
import { DataTable } from '../components/table.js';
import { Owners } from '../components/quarantineTrail.js';

type SuitePage = Awaited<ReturnType<RunOverviewService['suite']>>;
export type SuiteFilters = { status?: string; q?: string };

/** Long lists stay short: the first ones, then a count (the suite below lists everything). */
const SHOWN = 25;

function TestList({ tests }: { tests: CaseOutcome[] }) {
  return (
    <ul>
      {tests.slice(0, SHOWN).map((t) => (
        <li>
          <a href={`/tests/${t.testId}`}>{t.fullTitle}</a> <span class="muted small mono">{t.filePath}</span> <Owners owners={t.owners} />
        </li>
      ))}
      {tests.length > SHOWN && <li class="muted">and {tests.length - SHOWN} more</li>}
    </ul>
  );
}

function Meta({ run }: { run: Run }) {
  const rows: [string, unknown][] = [
    ['Branch', run.branch],
    ['Commit', run.commitSha && <><code>{shortSha(run.commitSha)}</code> {firstLine(run.commitMessage)}</>],
    ['Author', run.commitAuthor],
    ['CI', safeHref(run.ciBuildUrl) ? <a href={safeHref(run.ciBuildUrl)} rel="noopener noreferrer">{run.ciProvider ?? 'build'} {run.ciBuildId ?? ''}</a> : run.ciProvider],
    ['Started', when(run.createdAt)],
    ['Duration', duration(run.duration)],
    // A CI build's run spans all its shards (listed below); a run of its own names its one shard.
    ['Shard', run.finishedShards !== null ? (run.group ? `group ${run.group}` : null) : run.shardTotal ? `${run.shardCurrent}/${run.shardTotal}` : null],
    ['Environment', [run.browser, run.os, run.viewport, run.frameworkVersion && `Playwright ${run.frameworkVersion}`].filter(Boolean).join(' · ') || null],
    ['Tags', run.tags.length ? run.tags.map((t) => `#${t}`).join(' ') : null],
  ];
  return (
    <dl class="meta">
      {rows.filter(([, v]) => v).map(([k, v]) => (
        <>
          <dt>{k}</dt>
          <dd>{v as string}</dd>
        </>
      ))}
    </dl>
  );
}

/** The run where the group's earliest error was first seen, unless that is this run (docs/insights.md). */
function firstSeenElsewhere(group: ErrorGroup, seen: Map<string, FirstSeen>, runId: string): FirstSeen | 'new' | undefined {
  const firsts = group.tests.map((t) => (t.errorFingerprint ? seen.get(t.errorFingerprint) : undefined)).filter((f): f is FirstSeen => f !== undefined);
  if (firsts.length === 0) return undefined;
  return firsts.filter((f) => f.runId !== runId).sort((a, b) => a.at.localeCompare(b.at) || b.runs - a.runs)[0] ?? 'new';
}

/**
 * "new error" when every error of the group occurred first in this run, else where the earliest
 * was first seen: "seen since <date> in N runs (first on <commit>)". Text only: it sits in the
 * group's <summary>, a control itself, where a link would be an interactive element inside another
 * (axe: nested-interactive); the link to that run is the group's first line (FirstSeenLink).
 */
function Novelty({ first }: { first: FirstSeen | 'new' | undefined }) {
  if (!first) return null;
  if (first === 'new') return <span class="badge s-failed">new error</span>;
  return (
    <span class="muted small">
      seen since {first.at.slice(0, 10)} in {first.runs} run{first.runs === 1 ? '' : 's'}
      {first.commitSha && <> (first on <code>{shortSha(first.commitSha)}</code>)</>}
    </span>
  );
}

function FirstSeenLink({ first }: { first: FirstSeen | 'new' | undefined }) {
  if (!first || first === 'new') return null;
  return <p class="muted small">First seen in <a href={`/runs/${first.runId}`}>the run of {first.at.slice(0, 10)}</a></p>;
}

export function RunPage(props: { nav: NavData; run: Run; shards: Shard[]; groups: ErrorGroup[]; seen: Map<string, FirstSeen>; comparison: RunComparison; flaky: CaseOutcome[]; suite: SuitePage; filters: SuiteFilters; page: number; snapshots?: number }) {
  const { run, groups, comparison, flaky, suite, filters } = props;
  const path = `/runs/${run.id}`;
  const cards: [string, string | number, string][] = [
    ['Tests', run.totalTests, ''],
    ['Passed', run.passedTests, 's-passed'],
    ['Failed', run.failedTests, 's-failed'],
    ['Flaky', run.flakyTests, 's-flaky'],
    ['Skipped', run.skippedTests, 's-skipped'],
    ['Pass rate', percent(run.passRate), ''],
  ];
  return (
    <Layout title={run.runTitle || `Run ${run.id.slice(-8)}`} nav={props.nav}>
      <div data-live-region>
        <h1>
          {run.runTitle || `Run ${run.id.slice(-8)}`} <StatusBadge status={run.status} />
          {run.status === 'running' && <span data-running class="muted small"> updating live</span>}
        </h1>
        <Meta run={run} />
        <p class="small"><a href={`/runs/${run.id}/compare`}>Compare with…</a> any run of this project{comparison.baseRun && <> · <a href={`/runs/${run.id}/compare?base=${comparison.baseRun.id}`}>with the previous run</a></>}{props.snapshots ? <> · <a href={`/runs/${run.id}/visual`}>Review {props.snapshots} screenshot change{props.snapshots === 1 ? '' : 's'}</a></> : null}</p>
        <div class="cards">
          {cards.map(([label, value, cls]) => (
            <div class="card">
              <span class="muted small">{label}</span>
              <b class={cls}>{value}</b>
            </div>
          ))}
        </div>

        {run.finishedShards !== null && (
          <>
            <h2 id="shards">Shards ({run.finishedShards} of {run.shardTotal ?? 1} finished)</h2>
            <ShardTable run={run} shards={props.shards} />
          </>
        )}

        <h2>Failures by error ({groups.reduce((n, g) => n + g.count, 0)})</h2>
        {groups.length === 0 ? (
          <p class="muted">No failures.</p>
        ) : (
          groups.map((g, i) => {
            const first = firstSeenElsewhere(g, props.seen, run.id);
            return (
              <details class="group" open={i < 3}>
                <summary>
                  <span class="badge s-failed">{g.count}</span> <code>{firstLine(g.example, 200)}</code> <Novelty first={first} />
                </summary>
                <FirstSeenLink first={first} />
                <TestList tests={g.tests} />
              </details>
            );
          })
        )}

        <h2>Since the previous run</h2>
        {comparison.baseRun ? (
          <p class="muted">
            Compared with <a href={`/runs/${comparison.baseRun.id}`}>the previous finished run on {comparison.baseRun.branch ?? 'no branch'}</a> ({when(comparison.baseRun.createdAt)}).
          </p>
        ) : (
          <p class="muted">No earlier finished run on {run.branch ?? 'this (empty) branch'}: every failure counts as new.</p>
        )}
        <h3 class="s-failed">New failures ({comparison.newFailures.length})</h3>
        {comparison.newFailures.length ? <TestList tests={comparison.newFailures} /> : <p class="muted">None.</p>}
        <h3 class="s-passed">Fixed ({comparison.fixed.length})</h3>
        {comparison.fixed.length ? <TestList tests={comparison.fixed} /> : <p class="muted">None.</p>}
        {comparison.stillFailing.length > 0 && <p class="muted">Still failing: {comparison.stillFailing.length}.</p>}

        <h2>Flaky in this run ({flaky.length})</h2>
        {flaky.length ? <TestList tests={flaky} /> : <p class="muted">None.</p>}
      </div>

      <h2 id="suite">Suite</h2>
      <DataTable
        head={
          <>
            <th>File</th><th class="num">Tests</th><th class="num">Passed</th><th class="num">Failed</th><th class="num">Flaky</th><th class="num">Skipped</th>
          </>
        }
      >
        {suite.files.map((f) => (
          <tr>
            <td class="mono">{f.filePath || '(no file)'}</td>
            <td class="num">{f.total}</td>
            <td class="num s-passed">{f.counts.passed ?? 0}</td>
            <td class="num s-failed">{f.counts.failed ?? 0}</td>
            <td class="num s-flaky">{f.counts.flaky ?? 0}</td>
            <td class="num s-skipped">{f.counts.skipped ?? 0}</td>
          </tr>
        ))}
      </DataTable>
      <form class="filters" method="get" action={`${path}#suite`} role="search" aria-label="Filter tests">
        <label>
          Status
          <select name="status">
            <option value="">All</option>
            {['failed', 'flaky', 'passed', 'skipped'].map((s) => (
              <option value={s} selected={filters.status === s}>{s}</option>
            ))}
          </select>
        </label>
        <label>
          Search tests
          <input type="search" name="q" value={filters.q ?? ''} />
        </label>
        <button type="submit">Filter</button>
      </form>
      {suite.rows.length ? <SuiteTree rows={suite.rows} /> : <p class="muted">No tests match.</p>}
      <Pager path={path} query={filters} page={props.page} pageSize={suite.limit} total={suite.total} label="tests" />
    </Layout>
  );
}
