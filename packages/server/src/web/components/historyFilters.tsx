/** Filter fields shared by the pages that read across runs (Errors, Search). */

export const WINDOW_DAYS = ['7', '30', '90'] as const;
const DAY = 86_400_000;

/** `?days=` when it is one of the windows offered, else undefined (all retained history). */
export const windowOf = (days: string | undefined) => ((WINDOW_DAYS as readonly string[]).includes(days ?? '') ? days : undefined);
/** The start of a `days` window ending `now`, as the API's `since`. */
export const sinceOf = (days: string | undefined, now: Date) => (days ? new Date(now.getTime() - Number(days) * DAY).toISOString() : undefined);
/**
 * The start of a `days` window of whole UTC days ending today (today included), as the API's
 * `since`: a bound at midnight UTC is answered from the error groups' daily aggregates rather than
 * by scanning the failures (docs/insights.md "Error groups").
 */
export const sinceDayOf = (days: string | undefined, now: Date) => (days ? `${new Date(now.getTime() - (Number(days) - 1) * DAY).toISOString().slice(0, 10)}T00:00:00.000Z` : undefined);

export function BranchSelect({ branches, selected }: { branches: string[]; selected?: string }) {
  return (
    <label>
      Branch
      <select name="branch">
        <option value="">All branches</option>
        {branches.map((b) => <option value={b} selected={selected === b}>{b}</option>)}
      </select>
    </label>
  );
}

export function WindowSelect({ label, selected }: { label: string; selected?: string }) {
  return (
    <label>
      {label}
      <select name="days">
        {[['', 'all retained history'], ...WINDOW_DAYS.map((d) => [d, `the last ${d} days`])].map(([v, l]) => <option value={v} selected={(selected ?? '') === v}>{l}</option>)}
      </select>
    </label>
  );
}
