import type { Step } from '@testreport/contract';
import { duration } from '../format.js';

const failed = (s: Step): boolean => s.status === 'failed' || !!s.error || (s.steps ?? []).some(failed);
const where = (s: Step) => (s.location ? `${s.location.file}:${s.location.line}` : '');

function StepLine({ s }: { s: Step }) {
  return (
    <>
      <span class="title">
        {failed(s) ? '✗ ' : ''}
        {s.title}
      </span>{' '}
      <span class="muted small">
        {s.category} · {duration(s.duration)}
        {s.location && <> · <span class="mono">{where(s)}</span></>}
      </span>
      {s.error && <div class="small s-failed">{s.error.message.split('\n')[0]}</div>}
    </>
  );
}

/** Steps as a nested list with file:line; a step with children folds, and the path to a failing step is open. */
export function StepTree({ steps }: { steps: Step[] }) {
  if (steps.length === 0) return <p class="muted">No steps recorded.</p>;
  return (
    <ul class="tree">
      {steps.map((s) => (
        <li class={failed(s) ? 'step-failed' : undefined}>
          {s.steps && s.steps.length > 0 ? (
            <details open={failed(s)}>
              <summary>
                <StepLine s={s} />
              </summary>
              <StepTree steps={s.steps} />
            </details>
          ) : (
            <StepLine s={s} />
          )}
        </li>
      ))}
    </ul>
  );
}
