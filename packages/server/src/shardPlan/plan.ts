import type { PlannedShard } from '@testreport/contract';

/** One file's time in one run: the sum of its tests' durations. */
export interface FileSample {
  runId: string;
  filePath: string;
  duration: number;
}

/**
 * A file's typical duration: the median of its per-run sums, so one slow run (a cold cache, a
 * timeout) does not move the file to a shard of its own.
 */
export function typicalDurations(samples: FileSample[]): Map<string, number> {
  const byFile = new Map<string, number[]>();
  for (const s of samples) {
    const list = byFile.get(s.filePath) ?? [];
    list.push(s.duration);
    byFile.set(s.filePath, list);
  }
  const out = new Map<string, number>();
  for (const [file, list] of byFile) {
    list.sort((a, b) => a - b);
    const mid = list.length >> 1;
    out.set(file, list.length % 2 ? list[mid] : (list[mid - 1] + list[mid]) / 2);
  }
  return out;
}

/**
 * Longest file first into the least loaded shard (LPT): within 4/3 of the best split, and in
 * practice within one file's duration of it. Deterministic: ties go to the file name, then the
 * lowest shard index, so every CI job computes the same plan from the same history.
 */
export function splitIntoShards(durations: Map<string, number>, total: number): PlannedShard[] {
  const shards: PlannedShard[] = Array.from({ length: total }, (_, i) => ({ index: i + 1, files: [], expectedDuration: 0 }));
  const files = [...durations].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  for (const [file, duration] of files) {
    let target = shards[0];
    for (const s of shards) if (s.expectedDuration < target.expectedDuration) target = s;
    target.files.push(file);
    target.expectedDuration += duration;
  }
  for (const s of shards) {
    s.files.sort();
    s.expectedDuration = Math.round(s.expectedDuration);
  }
  return shards;
}
