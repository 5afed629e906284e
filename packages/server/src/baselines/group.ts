/** `box-expected.png`, `box-actual.png`, `box-diff.png`: Playwright's names for one comparison's files. */
const PART = /^(.+)-(expected|actual|diff)\.[a-z0-9]+$/i;

export interface SnapshotFile { id: string; file_name: string; retry: number | null | undefined; snapshot_path: string | null | undefined }
export interface SnapshotGroup { name: string; retry: number | null; snapshotPath: string; expected?: string; actual: string; diff?: string }

/**
 * Groups a test's screenshots into snapshots: per name, the latest try that wrote an actual (a
 * later try's comparison supersedes an earlier one's). A comparison without an actual (the
 * comparison passed) or without a snapshot path (an uploader from before paths were sent: nothing
 * to write it to) is no snapshot.
 */
export function groupSnapshots(files: SnapshotFile[]): SnapshotGroup[] {
  const byKey = new Map<string, Partial<SnapshotGroup> & { name: string; retry: number | null }>();
  for (const f of files) {
    const m = PART.exec(f.file_name);
    if (!m) continue;
    const retry = f.retry ?? null;
    const key = `${retry ?? ''}\0${m[1]}`;
    let g = byKey.get(key);
    if (!g) byKey.set(key, (g = { name: m[1], retry }));
    g[m[2].toLowerCase() as 'expected' | 'actual' | 'diff'] = f.id;
    if (f.snapshot_path) g.snapshotPath = f.snapshot_path;
  }
  const latest = new Map<string, SnapshotGroup>();
  for (const g of byKey.values()) {
    if (!g.actual || !g.snapshotPath) continue;
    const seen = latest.get(g.name);
    if (!seen || (g.retry ?? -1) > (seen.retry ?? -1)) latest.set(g.name, g as SnapshotGroup);
  }
  return [...latest.values()].sort((a, b) => a.name.localeCompare(b.name));
}
