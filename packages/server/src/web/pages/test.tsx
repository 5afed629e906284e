import type { Artifact, Attempt, Run, Step, TestDetail } from '@testreport/contract';
import type { CaseState } from '../../results/caseState.js';
import { TryTabs, TryView } from '../components/attempt.js';
import { HistoryStrip } from '../components/charts.js';
import { QuarantineTrail } from '../components/quarantineTrail.js';
import { StatusBadge } from '../components/status.js';
import { duration, percent, when } from '../format.js';
import { Layout, type NavData } from '../layout.js';
import { buildPrompt, historyLine, type PromptHistory } from '../prompt.js';

type History = (PromptHistory[number] & { id: string; duration: number; branch: string | null })[];

/** The tries to show: the stored ones, or the test itself as its one try (JUnit uploads, older clients). */
export function triesOf(test: TestDetail, stepCount: number): Attempt[] {
  if (test.attempts.length > 0) return test.attempts;
  return [{
    retry: 0, status: test.status === 'flaky' ? 'passed' : test.status, duration: test.duration, startedAt: null,
    errors: test.error ? [{ message: test.error.message, stack: test.error.stack ?? null, location: null, snippet: null }] : [],
    stdout: test.stdout, stderr: test.stderr, annotations: [], attachments: [], stepCount,
  }];
}

/** The try open by default: the one that decided the status (a flaky test's last failure), else the last. */
export function defaultTry(tries: Attempt[]): number {
  const failing = [...tries].reverse().find((a) => a.errors.length > 0 || a.status === 'failed' || a.status === 'timedOut');
  return (failing ?? tries[tries.length - 1]).retry;
}

export function TestPage(props: { nav: NavData; test: TestDetail; tries: Attempt[]; selected: number; run: Run; steps: Step[]; artifacts: Artifact[]; history: History; caseState: CaseState; secureContext: boolean }) {
  const { test, run, caseState, tries, selected } = props;
  const open = tries.find((a) => a.retry === selected) ?? tries[tries.length - 1];
  // Files of the open try, and files whose try nobody said (older uploads).
  const files = props.artifacts.filter((a) => a.retry === open.retry || a.retry === null);
  const line = historyLine(props.history);
  // The test's error names expected and actual values (of an expect() failure): shown with the try it came from.
  const e = test.error;
  const matcher = e && (e.expected !== undefined || e.actual !== undefined) && open.errors[0]?.message === e.message ? e : undefined;
  const prompt = test.status === 'failed' || test.status === 'flaky' ? buildPrompt(test, open.errors.length ? open : tries.findLast((a) => a.errors.length), props.history) : '';
  return (
    <Layout title={test.title} nav={props.nav}>
      <p class="small">
        <a href={`/runs/${run.id}`}>← {run.runTitle || `Run ${run.id.slice(-8)}`}</a>
      </p>
      <h1>
        {test.title} <StatusBadge status={test.status} />
      </h1>
      <p class="muted mono small">
        {test.fullTitle}
        {test.filePath && ` · ${test.filePath}${test.lineNumber ? `:${test.lineNumber}` : ''}`}
      </p>
      {prompt && (
        <div class="row">
          <button type="button" data-copy="prompt-text" class="copy-prompt">Copy prompt</button>
          <details class="small">
            <summary>What it copies</summary>
            <pre id="prompt-text" tabindex={0}>{prompt}</pre>
          </details>
        </div>
      )}
      <dl class="meta">
        <dt>Duration</dt>
        <dd>{duration(test.duration)}</dd>
        <dt>Tries</dt>
        <dd>{tries.length}</dd>
        <dt>Run started</dt>
        <dd>{when(run.createdAt)}</dd>
        {test.tags.length > 0 && (
          <>
            <dt>Tags</dt>
            <dd>{test.tags.join(' ')}</dd>
          </>
        )}
        {test.annotations.map((a) => (
          <>
            <dt>{a.type}</dt>
            <dd>{a.description}</dd>
          </>
        ))}
        <dt>Flakiness</dt>
        <dd>
          {percent(caseState.flakinessScore * 100)} ({caseState.flakyRuns} flaky of {caseState.totalRuns} {caseState.totalRuns === 1 ? 'run' : 'runs'})
          {caseState.isQuarantined ? <> · <span class="badge s-flaky">quarantined</span></> : ' · not quarantined'}
        </dd>
      </dl>

      <QuarantineTrail owners={test.owners} events={caseState.events} />

      <h2>History</h2>
      {line && <p class="small">This test {line}.</p>}
      <HistoryStrip items={props.history} currentId={test.id} />

      <h2>{tries.length > 1 ? 'Tries' : 'Result'}</h2>
      <TryTabs testId={test.id} attempts={tries} selected={open.retry} />
      <TryView attempt={open} steps={props.steps} artifacts={files} secureContext={props.secureContext} matcher={matcher} />
    </Layout>
  );
}
