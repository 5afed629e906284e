import type { Insights } from '@testreport/contract';
import { duration, percent } from '../format.js';

type Day = Insights['trend'][number];

/* One geometry for both charts, so their days line up when they sit one above the other. */
const W = 640;
const H = 170;
const LEFT = 52;
const RIGHT = 12;
const TOP = 12;
const BOTTOM = 26;
const plotW = W - LEFT - RIGHT;
const plotH = H - TOP - BOTTOM;

/** The centre of day `i` of `n`: each day owns an equal slot, so bars and points share one x. */
const xOf = (i: number, n: number) => LEFT + ((i + 0.5) * plotW) / n;
const yOf = (v: number, max: number) => TOP + plotH - (v / max) * plotH;

/** About six date labels whatever the window (7, 30 or 90 days), always the first and the last day. */
function dateTicks(days: Day[]): number[] {
  const n = days.length;
  if (n <= 8) return days.map((_, i) => i);
  const step = Math.ceil(n / 6);
  const out: number[] = [];
  for (let i = 0; i < n - step / 2; i += step) out.push(i);
  out.push(n - 1);
  return out;
}

function XAxis({ days }: { days: Day[] }) {
  return (
    <>
      <line class="axis" x1={LEFT} y1={TOP + plotH} x2={W - RIGHT} y2={TOP + plotH} />
      {/* The last label ends at the edge rather than centring on its day, so 90 days do not clip it. */}
      {dateTicks(days).map((i) => (
        i === days.length - 1 && days.length > 8
          ? <text x={W - 2} y={H - 8} text-anchor="end">{days[i].date.slice(5)}</text>
          : <text x={xOf(i, days.length).toFixed(1)} y={H - 8} text-anchor="middle">{days[i].date.slice(5)}</text>
      ))}
    </>
  );
}

/** Horizontal grid lines with their labels on the left. */
function YAxis({ ticks, max, label }: { ticks: number[]; max: number; label: (v: number) => string }) {
  return (
    <>
      {ticks.map((v) => (
        <>
          <line class={v === 0 ? 'axis' : 'grid'} x1={LEFT} y1={yOf(v, max).toFixed(1)} x2={W - RIGHT} y2={yOf(v, max).toFixed(1)} />
          <text x={LEFT - 6} y={(yOf(v, max) + 3).toFixed(1)} text-anchor="end">{label(v)}</text>
        </>
      ))}
    </>
  );
}

const STEPS = [1, 1.5, 2, 3, 4, 5, 6, 8, 10];
/** The unit a duration axis counts in: ms below a second, seconds below a minute, else minutes. */
const unitOf = (v: number) => (v < 1000 ? 1 : v < 60_000 ? 1000 : 60_000);

/** A round top for the duration axis in its unit (say 8 min, not 6 min 2 s), so the grid lines read well. */
export function niceMax(v: number): number {
  if (v <= 0) return 1000;
  const unit = unitOf(v);
  const p = 10 ** Math.floor(Math.log10(v / unit));
  return (STEPS.find((m) => m * p * unit >= v) ?? 10) * p * unit;
}

/** A short axis label: "250 ms", "1.5 s", "4 min". */
export function axisDuration(v: number, top: number): string {
  if (v === 0) return '0';
  const unit = unitOf(top);
  const n = Number((v / unit).toFixed(1));
  return unit === 1 ? `${n} ms` : unit === 1000 ? `${n} s` : `${n} min`;
}

/**
 * Pass rate per day as a line (0–100 %), server-rendered SVG. Days without results break the line
 * rather than dropping to zero: "no runs" is not "all failed".
 */
export function PassRateChart({ days }: { days: Day[] }) {
  const n = days.length;
  const segments: string[][] = [];
  let open: string[] | null = null;
  days.forEach((d, i) => {
    if (d.passRate === null) return void (open = null);
    if (!open) segments.push((open = []));
    open.push(`${xOf(i, n).toFixed(1)},${yOf(d.passRate, 100).toFixed(1)}`);
  });
  const measured = days.filter((d) => d.passRate !== null);
  const latest = measured[measured.length - 1];
  return (
    <figure class="day-chart">
      <svg class="chart" viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`Pass rate per day from ${days[0].date} to ${days[n - 1].date}${latest ? `; latest ${percent(latest.passRate!)} on ${latest.date}` : ''}`}>
        <YAxis ticks={[0, 25, 50, 75, 100]} max={100} label={(v) => `${v}%`} />
        <XAxis days={days} />
        {segments.map((s) => <polyline class="rate" points={s.join(' ')} />)}
        {days.map((d, i) =>
          d.passRate === null ? null : (
            <circle class="rate-point" cx={xOf(i, n).toFixed(1)} cy={yOf(d.passRate, 100).toFixed(1)} r={n > 40 ? 2 : 3}>
              <title>{`${d.date}: ${percent(d.passRate)} passed in ${d.runs} run${d.runs === 1 ? '' : 's'}`}</title>
            </circle>
          ),
        )}
      </svg>
      <figcaption class="muted small">Pass rate per day: passed results of that day's runs ÷ all their results. Gaps: days without results.</figcaption>
    </figure>
  );
}

/** Median wall time of each day's finished runs, as bars; days without a finished run stay empty. */
export function DurationChart({ days }: { days: Day[] }) {
  const n = days.length;
  const max = niceMax(Math.max(0, ...days.map((d) => d.medianDuration ?? 0)));
  const slot = plotW / n;
  const barW = Math.max(1, Math.min(24, slot * 0.7));
  return (
    <figure class="day-chart">
      <svg class="chart" viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`Median run duration per day from ${days[0].date} to ${days[n - 1].date}, up to ${duration(max)}`}>
        <YAxis ticks={[0, max / 2, max]} max={max} label={(v) => axisDuration(v, max)} />
        <XAxis days={days} />
        {days.map((d, i) => {
          if (d.medianDuration === null) return null;
          const h = Math.max(1, (d.medianDuration / max) * plotH);
          return (
            <rect class="dur-bar" x={(xOf(i, n) - barW / 2).toFixed(1)} y={(TOP + plotH - h).toFixed(1)} width={barW.toFixed(1)} height={h.toFixed(1)}>
              <title>{`${d.date}: median ${duration(d.medianDuration)} over ${d.runs} run${d.runs === 1 ? '' : 's'}`}</title>
            </rect>
          );
        })}
      </svg>
      <figcaption class="muted small">Median wall time of the runs that finished that day.</figcaption>
    </figure>
  );
}
