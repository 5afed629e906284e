import type { Artifact, Attempt, AttemptError, Step } from '@testreport/contract';
import { duration, when } from '../format.js';
import { Ansi } from './ansi.js';
import { Artifacts } from './artifacts.js';
import { groupComparisons, ImageComparison } from './imageDiff.js';
import { StepTree } from './steps.js';

export const tryLabel = (retry: number) => (retry === 0 ? 'Run' : `Retry #${retry}`);
const STATUS_CLASS: Record<string, string> = { passed: 's-passed', failed: 's-failed', timedOut: 's-failed', interrupted: 's-skipped', skipped: 's-skipped' };
const STATUS_TEXT: Record<string, string> = { passed: 'passed', failed: 'failed', timedOut: 'timed out', interrupted: 'interrupted', skipped: 'skipped' };

/**
 * A tab per try: links to this page with `?retry=N`, so each works without script, is reachable by
 * keyboard, and the page carries only the open try (10 tries × 20 files stay one try's weight).
 */
export function TryTabs({ testId, attempts, selected }: { testId: string; attempts: Attempt[]; selected: number }) {
  if (attempts.length < 2) return null;
  return (
    <nav class="tabs" aria-label="Tries">
      {attempts.map((a) => (
        <a href={`/tests/${testId}?retry=${a.retry}#try`} aria-current={a.retry === selected ? 'page' : undefined} class={STATUS_CLASS[a.status]}>
          {a.status === 'passed' ? '✓' : a.status === 'skipped' ? '–' : '✗'} {tryLabel(a.retry)}
          <span class="sr-only"> ({STATUS_TEXT[a.status]})</span>
        </a>
      ))}
    </nav>
  );
}

/** Playwright's code frame, the failing line (`>`) and its caret line marked. */
export function Snippet({ text }: { text: string }) {
  return (
    <pre class="snippet" aria-label="Code at the error" tabindex={0}>
      {text.split('\n').map((line) => (
        <span class={/^\s*>/.test(line) ? 'line hl' : /^\s+\|\s*\^/.test(line) ? 'line caret' : 'line'}>
          <Ansi text={line} />
          {'\n'}
        </span>
      ))}
    </pre>
  );
}

/** The frames of a stack (its message part is shown above it). */
const framesOf = (stack: string) => stack.split('\n').filter((l) => /^\s+at /.test(l)).map((l) => l.trim()).join('\n');

export function ErrorView({ e }: { e: AttemptError }) {
  const frames = e.stack ? framesOf(e.stack) : '';
  return (
    <div class="err">
      {e.location && <p class="mono small">{`${e.location.file}:${e.location.line}:${e.location.column}`}</p>}
      <pre class="s-failed" tabindex={0}><Ansi text={e.message} /></pre>
      {e.snippet && <Snippet text={e.snippet} />}
      {frames && (
        <details>
          <summary>Stack</summary>
          <pre tabindex={0}><Ansi text={frames} /></pre>
        </details>
      )}
    </div>
  );
}

/** One try: its errors with code, steps, files (snapshot comparisons as viewers), text attachments inline, output. */
export function TryView(props: { attempt: Attempt; steps: Step[]; artifacts: Artifact[]; secureContext: boolean; matcher?: { expected?: string; actual?: string } }) {
  const { attempt: a } = props;
  const shots = props.artifacts.filter((x) => x.type === 'screenshot');
  const { comparisons, others } = groupComparisons(shots);
  const rest = [...others, ...props.artifacts.filter((x) => x.type !== 'screenshot')];
  const missing = (name: string) => a.errors.some((e) => e.message.includes("snapshot doesn't exist") && e.message.includes(name));
  return (
    <section id="try" aria-label={tryLabel(a.retry)}>
      <p class="small">
        <b class={STATUS_CLASS[a.status]}>{tryLabel(a.retry)}: {STATUS_TEXT[a.status]}</b> · {duration(a.duration)}
        {a.startedAt && <> · started {when(a.startedAt)}</>}
      </p>
      {a.annotations.length > 0 && (
        <dl class="meta">
          {a.annotations.map((x) => (
            <>
              <dt>{x.type}</dt>
              <dd>{x.description}</dd>
            </>
          ))}
        </dl>
      )}
      {a.errors.length > 0 && (
        <>
          <h3>{a.errors.length === 1 ? 'Error' : `${a.errors.length} errors`}</h3>
          {a.errors.map((e) => <ErrorView e={e} />)}
          {props.matcher && (
            <dl class="meta">
              <dt>Expected</dt>
              <dd><code>{props.matcher.expected ?? ''}</code></dd>
              <dt>Actual</dt>
              <dd><code>{props.matcher.actual ?? ''}</code></dd>
            </dl>
          )}
        </>
      )}
      {comparisons.map((c) => <ImageComparison c={c} missingBaseline={missing(c.name)} />)}
      {a.attachments.map((t) => (
        <details class="text-attachment" open={t.name === 'error-context'}>
          <summary>
            {t.name === 'error-context' ? 'Page snapshot (error-context)' : t.name} <span class="muted small">{t.contentType}</span>
          </summary>
          <pre tabindex={0}>{t.body}</pre>
        </details>
      ))}
      <h3>Steps</h3>
      <StepTree steps={props.steps} />
      <h3>Attachments</h3>
      <Artifacts items={rest} secureContext={props.secureContext} />
      {a.stdout && (
        <>
          <h3>stdout</h3>
          <pre tabindex={0}><Ansi text={a.stdout} /></pre>
        </>
      )}
      {a.stderr && (
        <>
          <h3>stderr</h3>
          <pre tabindex={0}><Ansi text={a.stderr} /></pre>
        </>
      )}
    </section>
  );
}
