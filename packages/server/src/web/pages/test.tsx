import type { Artifact, Run, Step, Test } from '@testreport/contract';
import type { CaseState } from '../../results/caseState.js';
import { Artifacts } from '../components/artifacts.js';
import { HistoryStrip } from '../components/charts.js';
import { QuarantineTrail } from '../components/quarantineTrail.js';
import { StatusBadge } from '../components/status.js';
import { StepTree } from '../components/steps.js';
import { duration, percent, stripAnsi, when } from '../format.js';
import { Layout, type NavData } from '../layout.js';

type History = { id: string; status: string; createdAt: string; duration: number; branch: string | null }[];

const Block = ({ label, text }: { label: string; text: string | null | undefined }) =>
  text ? (
    <>
      <h3>{label}</h3>
      <pre>{stripAnsi(text)}</pre>
    </>
  ) : null;

/** Playwright's stack repeats the message first; show only the frames below it. */
function stackOnly(message: string, stack: string | undefined) {
  const m = stripAnsi(message).trim();
  const st = stripAnsi(stack).trim();
  return st.startsWith(m) ? st.slice(m.length).trim() : st;
}

export function TestPage(props: { nav: NavData; test: Test; run: Run; steps: Step[]; artifacts: Artifact[]; history: History; caseState: CaseState; secureContext: boolean }) {
  const { test, run, caseState } = props;
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
      <dl class="meta">
        <dt>Duration</dt>
        <dd>{duration(test.duration)}</dd>
        <dt>Retries</dt>
        <dd>{test.retries}</dd>
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
          {percent(caseState.flakinessScore * 100)} ({caseState.flakyRuns} flaky of {caseState.totalRuns} runs)
          {caseState.isQuarantined ? <> · <span class="badge s-flaky">quarantined</span></> : ' · not quarantined'}
        </dd>
      </dl>

      <QuarantineTrail owners={test.owners} events={caseState.events} />

      <h2>History</h2>
      <HistoryStrip items={props.history} currentId={test.id} />

      {test.error && (
        <>
          <h2>Error</h2>
          <pre class="s-failed">{stripAnsi(test.error.message)}</pre>
          {(test.error.expected !== undefined || test.error.actual !== undefined) && (
            <dl class="meta">
              <dt>Expected</dt>
              <dd><code>{test.error.expected ?? ''}</code></dd>
              <dt>Actual</dt>
              <dd><code>{test.error.actual ?? ''}</code></dd>
            </dl>
          )}
          <Block label="Stack" text={stackOnly(test.error.message, test.error.stack)} />
        </>
      )}

      <h2>Steps</h2>
      <StepTree steps={props.steps} />

      <h2>Attachments</h2>
      <Artifacts items={props.artifacts} secureContext={props.secureContext} />

      <Block label="stdout" text={test.stdout} />
      <Block label="stderr" text={test.stderr} />
    </Layout>
  );
}
