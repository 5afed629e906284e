import type { RunOverviewService } from '../../runs/overview.js';
import { duration } from '../format.js';
import { StatusBadge } from './status.js';

type SuitePage = Awaited<ReturnType<RunOverviewService['suite']>>;
type Row = SuitePage['rows'][number];

/** One page of results as files → describe blocks → tests (the describe path is the full title minus the test's own title). */
export function SuiteTree({ rows }: { rows: Row[] }) {
  const files = new Map<string, Map<string, Row[]>>();
  for (const r of rows) {
    const file = r.file_path ?? '(no file)';
    const parts = r.full_title.split(' > ');
    const describe = parts.length > 1 && parts[parts.length - 1] === r.title ? parts.slice(0, -1).join(' › ') : '';
    if (!files.has(file)) files.set(file, new Map());
    const groups = files.get(file)!;
    if (!groups.has(describe)) groups.set(describe, []);
    groups.get(describe)!.push(r);
  }
  return (
    <ul class="tree">
      {[...files].map(([file, groups]) => (
        <li>
          <div class="file mono">{file}</div>
          <ul>
            {[...groups].map(([describe, tests]) => (
              <li>
                {describe && <div class="describe">{describe}</div>}
                <ul>
                  {tests.map((t) => (
                    <li>
                      <StatusBadge status={t.status} /> <a href={`/tests/${t.id}`}>{t.title}</a>{' '}
                      <span class="muted small">
                        {duration(t.duration)}
                        {t.retries > 0 ? ` · retry ${t.retries}` : ''}
                      </span>
                    </li>
                  ))}
                </ul>
              </li>
            ))}
          </ul>
        </li>
      ))}
    </ul>
  );
}
