import type { Run, Shard } from '@testreport/contract';
import { duration, when } from '../format.js';
import { Counts, StatusBadge } from './status.js';
import { DataTable } from './table.js';

/** "Finished with 2 of 3 shards (no activity for the project's shard timeout)" and the like. */
export function shardSummary(run: Run): string {
  const of = `${run.finishedShards ?? 0} of ${run.shardTotal ?? 1} shards`;
  const again = run.finishCount > 1 ? `, finished ${run.finishCount} times (a late shard or a re-run reopened it)` : '';
  switch (run.finishReason) {
    case 'timeout':
      return `Finished with ${of}: no shard reported for the project's shard timeout${again}.`;
    case 'complete':
      return `Completed by hand with ${of} finished${again}.`;
    case 'cancel':
      return `Cancelled with ${of} finished${again}.`;
    case 'shards':
      return `All ${run.shardTotal ?? 1} shards finished${again}.`;
    default:
      return `${of} finished so far.`;
  }
}

/**
 * Every attempt of every shard of a CI build's run. An attempt a later one superseded is marked:
 * its results count only for tests the later attempt did not run again.
 */
export function ShardTable({ run, shards }: { run: Run; shards: Shard[] }) {
  const latest = new Map<number, number>();
  for (const s of shards) latest.set(s.index, Math.max(latest.get(s.index) ?? 0, s.attempt));
  const missing = Array.from({ length: run.shardTotal ?? 1 }, (_, i) => i + 1).filter((i) => !latest.has(i));
  return (
    <>
      <p class="muted" data-shard-summary>{shardSummary(run)}</p>
      <DataTable
        head={
          <>
            <th class="num">Shard</th><th class="num">Attempt</th><th>Status</th><th>Reported counts</th><th>Duration</th><th>Started</th><th>Finished</th><th>Last activity</th>
          </>
        }
      >
        {shards.map((s) => (
          <tr class={s.attempt < latest.get(s.index)! ? 'muted' : ''}>
            <td class="num">{s.index}/{run.shardTotal ?? 1}</td>
            <td class="num">{s.attempt}{s.attempt < latest.get(s.index)! ? ' (superseded)' : ''}</td>
            <td><StatusBadge status={s.status} /></td>
            <td><Counts passed={s.passedTests} failed={s.failedTests} flaky={s.flakyTests} skipped={s.skippedTests} /></td>
            <td>{duration(s.duration)}</td>
            <td>{when(s.startedAt)}</td>
            <td>{when(s.finishedAt)}</td>
            <td>{when(s.lastActivityAt)}</td>
          </tr>
        ))}
        {missing.map((i) => (
          <tr class="muted">
            <td class="num">{i}/{run.shardTotal ?? 1}</td>
            <td class="num">–</td>
            <td colspan={6}>never reported</td>
          </tr>
        ))}
      </DataTable>
    </>
  );
}
