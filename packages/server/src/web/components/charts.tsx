import type { TrendPoint } from '../../runs/overview.js';
import { duration, percent, when } from '../format.js';

const W = 600;
const H = 140;
const PAD = 28;

/**
 * Pass rate (solid, 0–100 %) and duration (dashed, 0–max) of recent runs, oldest on the left, as a
 * server-rendered SVG: no chart library, nothing to load. Each point links to its run.
 */
export function TrendChart({ points }: { points: TrendPoint[] }) {
  if (points.length < 2) return <p class="muted">The trend appears after two runs.</p>;
  const maxDur = Math.max(1, ...points.map((p) => p.duration ?? 0));
  const x = (i: number) => PAD + (i * (W - 2 * PAD)) / (points.length - 1);
  const yRate = (r: number) => H - PAD + ((PAD * 2 - H) * r) / 100;
  const yDur = (d: number) => H - PAD + ((PAD * 2 - H) * d) / maxDur;
  const rate = points.map((p, i) => `${x(i).toFixed(1)},${yRate(p.passRate).toFixed(1)}`).join(' ');
  const durs = points.map((p, i) => `${x(i).toFixed(1)},${yDur(p.duration ?? 0).toFixed(1)}`).join(' ');
  const last = points[points.length - 1];
  return (
    <figure>
      <svg class="chart" viewBox={`0 0 ${W} ${H}`} role="group" aria-label={`Pass rate and duration of the last ${points.length} runs; latest ${percent(last.passRate)} in ${duration(last.duration)}`}>
        <line class="axis" x1={PAD} y1={H - PAD} x2={W - PAD} y2={H - PAD} />
        <line class="axis" x1={PAD} y1={PAD} x2={W - PAD} y2={PAD} />
        <text x={2} y={PAD + 3}>100%</text>
        <text x={2} y={H - PAD + 3}>0%</text>
        <text x={W - PAD} y={PAD - 6} text-anchor="end">{`longest ${duration(maxDur)}`}</text>
        <polyline class="rate" points={rate} />
        <polyline class="dur" points={durs} />
        {points.map((p, i) => (
          <a href={`/runs/${p.runId}`} aria-label={`Run of ${when(p.createdAt)}: ${p.status}, ${percent(p.passRate)} passed, ${duration(p.duration)}`}>
            <circle cx={x(i)} cy={yRate(p.passRate)} r={3.5} class={`s-${p.status}`} fill="currentColor">
              <title>{`${when(p.createdAt)}: ${percent(p.passRate)} passed, ${duration(p.duration)}`}</title>
            </circle>
          </a>
        ))}
      </svg>
      <figcaption class="muted small">Solid: pass rate. Dashed: duration. Oldest run on the left.</figcaption>
    </figure>
  );
}

/** The case's last results, oldest on the left, each a link to that result. */
export function HistoryStrip({ items, currentId }: { items: { id: string; status: string; createdAt: string; duration: number; branch: string | null }[]; currentId: string }) {
  if (items.length === 0) return <p class="muted">No history.</p>;
  return (
    <>
    <div class="strip" role="list" aria-label="Recent results of this test, oldest first">
      {[...items].reverse().map((h) => (
        <a role="listitem" href={`/tests/${h.id}`} class={`s-${h.status}${h.id === currentId ? ' current' : ''}`} aria-current={h.id === currentId ? 'page' : undefined} title={`${h.status} · ${when(h.createdAt)} · ${duration(h.duration)}${h.branch ? ` · ${h.branch}` : ''}`}>
          <span class="sr-only">{`${h.status}, ${when(h.createdAt)}${h.id === currentId ? ' (this result)' : ''}`}</span>
        </a>
      ))}
    </div>
    <p class="small muted legend">
      Oldest on the left, one cell per run: <span class="key s-passed">■</span> passed <span class="key s-failed">■</span> failed{' '}
      <span class="key s-flaky">■</span> flaky <span class="key s-skipped">■</span> skipped; outlined: this result. Each cell links to its result.
    </p>
    </>
  );
}
