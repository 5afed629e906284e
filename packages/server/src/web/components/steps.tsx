import type { Step } from '@testreport/contract';
import { duration } from '../format.js';

const failed = (s: Step) => s.status === 'failed' || !!s.error;

/** Steps as a nested list; failing steps (and the path down to them) are marked and open. */
export function StepTree({ steps }: { steps: Step[] }) {
  if (steps.length === 0) return <p class="muted">No steps recorded.</p>;
  return (
    <ul class="tree">
      {steps.map((s) => (
        <li class={failed(s) ? 'step-failed' : undefined}>
          <span class="title">
            {failed(s) ? '✗ ' : ''}
            {s.title}
          </span>{' '}
          <span class="muted small">
            {s.category} · {duration(s.duration)}
          </span>
          {failed(s) && s.error && <div class="small s-failed">{s.error.message.split('\n')[0]}</div>}
          {s.steps && s.steps.length > 0 && <StepTree steps={s.steps} />}
        </li>
      ))}
    </ul>
  );
}
