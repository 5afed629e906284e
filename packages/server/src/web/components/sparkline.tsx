/** The UTC days from `from` to `to` (YYYY-MM-DD), both included. */
export function daysBetween(from: string, to: string): string[] {
  const out: string[] = [];
  for (let d = new Date(`${from}T00:00:00Z`); d.toISOString().slice(0, 10) <= to; d.setUTCDate(d.getUTCDate() + 1)) out.push(d.toISOString().slice(0, 10));
  return out;
}

/**
 * Occurrences per day as bars, server-rendered SVG (no script, nothing to load); days without
 * occurrences are empty slots, so gaps show.
 */
export function Sparkline({ days, counts, width = 120, height = 24, label }: { days: string[]; counts: Map<string, number>; width?: number; height?: number; label: string }) {
  const max = Math.max(1, ...days.map((d) => counts.get(d) ?? 0));
  const step = width / Math.max(1, days.length);
  return (
    <svg class="spark" viewBox={`0 0 ${width} ${height}`} width={width} height={height} role="img" aria-label={label}>
      <line class="axis" x1={0} y1={height - 0.5} x2={width} y2={height - 0.5} />
      {days.map((d, i) => {
        const n = counts.get(d) ?? 0;
        if (n === 0) return null;
        const h = Math.max(2, (n / max) * (height - 2));
        return (
          <rect class="s-failed" fill="currentColor" x={(i * step + step * 0.1).toFixed(1)} y={(height - h).toFixed(1)} width={(step * 0.8).toFixed(1)} height={h.toFixed(1)}>
            <title>{`${d}: ${n}`}</title>
          </rect>
        );
      })}
    </svg>
  );
}
