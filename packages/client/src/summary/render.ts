import type { RunSummaryResponse, SummaryList, SummaryTest } from '@testreport/contract';

/**
 * The first line of every Markdown summary: a CI step finds its earlier pull-request comment by it
 * and edits that one instead of adding another (examples/ci/).
 */
export const SUMMARY_MARKER = '<!-- testreport-summary -->';

/**
 * Size cap of a rendered summary, in characters. GitHub refuses comments over 65,536 characters and
 * a job summary over 1 MiB; GitLab notes take 1,000,000. One cap below all of them, so the same
 * text fits every place it is posted.
 */
export const SUMMARY_MAX_CHARS = 60_000;

export type SummaryFormat = 'markdown' | 'text';

export interface RenderOptions {
  format: SummaryFormat;
  /** Default SUMMARY_MAX_CHARS; long lists are cut and end with "…and N more". */
  maxChars?: number;
}

/** Room kept per list for its heading and the "…and N more" line, which are never cut. */
const LIST_OVERHEAD = 400;
const TITLE_MAX = 300;
const ERROR_MAX = 300;

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();
const clip = (s: string, max: number) => {
  const chars = [...oneLine(s)];
  return chars.length <= max ? chars.join('') : `${chars.slice(0, max - 1).join('')}…`;
};
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export function formatDuration(ms: number | null): string {
  if (ms === null) return '–';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m}m ${Math.round(s % 60)}s` : `${Math.floor(m / 60)}h ${m % 60}m`;
}

// --- Markdown ------------------------------------------------------------------------------------

/**
 * Text that Markdown must show as typed: no links, emphasis, tables or HTML from a test's title.
 * Only what matters inside a line is escaped (titles never start a line here).
 */
const md = (s: string) => s.replace(/[\\`*_{}[\]|~]/g, '\\$&').replace(/&/g, '&amp;').replace(/</g, '&lt;');
/** A code span that holds any text: the fence is one backtick longer than the longest run inside. */
const code = (s: string) => {
  const longest = Math.max(0, ...(s.match(/`+/g) ?? []).map((r) => r.length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${longest ? ' ' : ''}${s}${longest ? ' ' : ''}${fence}`;
};

/** A URL the run was sent with (not one the server made) as a link target that cannot end the link early. */
const linkTarget = (url: string) => url.replace(/[\s()<>]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);

const ICON: Record<string, string> = { passed: '✅', failed: '❌', running: '⏳', cancelled: '⚪' };

interface Section {
  heading: string;
  list: SummaryList;
}

function sections(s: RunSummaryResponse, format: SummaryFormat): Section[] {
  return [
    { heading: `New failures since the last run on ${format === 'markdown' ? md(clip(s.base.branch, 200)) : clip(s.base.branch, 200)}`, list: s.newFailures },
    { heading: 'Failed tests', list: s.failed },
    { heading: 'Fixed', list: s.fixed },
    { heading: 'Flaky (passed after failing)', list: s.flaky },
    { heading: 'Quarantined failures', list: s.quarantinedFailures },
  ].filter((x) => x.list.total > 0);
}

interface Style {
  head(s: RunSummaryResponse): string;
  foot(s: RunSummaryResponse): string;
  heading(title: string, total: number): string;
  item(t: SummaryTest): string;
  more(n: number, s: RunSummaryResponse): string;
  join: string;
}

const markdown: Style = {
  head(s) {
    const r = s.run;
    const verdict = r.status === 'running' ? 'still running' : r.failedTests > 0 ? 'failed' : r.status;
    const where = [r.branch ? `on ${code(clip(r.branch, 200))}` : '', r.commitSha ? `at ${code(r.commitSha.slice(0, 12))}` : ''].filter(Boolean).join(' ');
    const lines = [
      SUMMARY_MARKER,
      `### ${ICON[r.failedTests > 0 ? 'failed' : r.status] ?? ''} [Test run ${verdict}](${r.url}) ${where}`.replace(/\s+$/, ''),
      '',
      '| Tests | Passed | Failed | Flaky | Skipped | Pass rate | Duration |',
      '| ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
      `| ${r.totalTests} | ${r.passedTests} | ${r.failedTests} | ${r.flakyTests} | ${r.skippedTests} | ${r.passRate}% | ${formatDuration(r.duration)} |`,
      '',
    ];
    const base = code(clip(s.base.branch, 200));
    lines.push(
      s.base.run
        ? `Compared with [the last finished run on ${base}](${s.base.run.url}): **${plural(s.newFailures.total, 'new failure')}**, ${s.fixed.total} fixed.`
        : `No finished run on ${base} to compare with, so no failure is counted as new.`,
    );
    const q = s.quarantinedFailures.total;
    if (q > 0) lines.push('', `${q} of the failures ${q === 1 ? 'is a quarantined test' : 'are quarantined tests'}.`);
    return lines.join('\n');
  },
  foot(s) {
    return [`[Open the run in testreport](${s.run.url})`, s.run.ciBuildUrl ? ` · [CI build](${linkTarget(s.run.ciBuildUrl)})` : ''].join('');
  },
  heading: (title, total) => `#### ${title} (${total})\n`,
  item(t) {
    const where = t.filePath ? ` — ${code(clip(t.filePath, 200))}` : '';
    const mark = t.quarantined ? ' _(quarantined)_' : '';
    const owners = t.owners?.length ? ` · owners: ${md(clip(t.owners.join(' '), 200))}` : '';
    const error = t.error ? `<br>${code(clip(t.error, ERROR_MAX))}` : '';
    const seen = errorNovelty(t);
    return `- [${md(clip(t.fullTitle || t.title, TITLE_MAX))}](${t.url})${where}${mark}${owners}${seen ? ` _(${md(seen)})_` : ''}${error}`;
  },
  more: (n, s) => `- _…and ${n} more: see [the run](${s.run.url})_`,
  join: '\n\n',
};

/** "new error", or "error seen since 2026-11-02 in 9 runs, first on abc1234" (docs/insights.md). */
export function errorNovelty(t: SummaryTest): string | null {
  if (t.newError) return 'new error';
  const f = t.errorFirstSeen;
  if (!f) return null;
  return `error seen since ${f.at.slice(0, 10)} in ${f.runs} run${f.runs === 1 ? '' : 's'}${f.commitSha ? `, first on ${f.commitSha.slice(0, 7)}` : ''}`;
}

// --- Plain text ----------------------------------------------------------------------------------

const text: Style = {
  head(s) {
    const r = s.run;
    const verdict = r.status === 'running' ? 'still running' : r.failedTests > 0 ? 'failed' : r.status;
    const lines = [
      `Test run ${verdict}${r.branch ? ` on ${clip(r.branch, 200)}` : ''}${r.commitSha ? ` (${r.commitSha.slice(0, 12)})` : ''}`,
      `${plural(r.totalTests, 'test')}: ${r.passedTests} passed, ${r.failedTests} failed, ${r.flakyTests} flaky, ${r.skippedTests} skipped — ${r.passRate}% pass rate, ${formatDuration(r.duration)}`,
      s.base.run
        ? `Compared with the last finished run on ${clip(s.base.branch, 200)}: ${plural(s.newFailures.total, 'new failure')}, ${s.fixed.total} fixed (${s.base.run.url})`
        : `No finished run on ${clip(s.base.branch, 200)} to compare with.`,
    ];
    return lines.join('\n');
  },
  foot: (s) => `Run: ${s.run.url}${s.run.ciBuildUrl ? `\nCI build: ${s.run.ciBuildUrl}` : ''}`,
  heading: (title, total) => `${title} (${total}):`,
  item(t) {
    const mark = t.status === 'failed' ? '✗' : t.status === 'flaky' ? '~' : '✓';
    const owners = t.owners?.length ? ` · owners: ${clip(t.owners.join(' '), 200)}` : '';
    const lines = [`  ${mark} ${clip(t.fullTitle || t.title, TITLE_MAX)}${t.filePath ? ` — ${clip(t.filePath, 200)}` : ''}${t.quarantined ? ' (quarantined)' : ''}${owners}`];
    const seen = errorNovelty(t);
    if (t.error) lines.push(`      ${clip(t.error, ERROR_MAX)}${seen ? ` (${seen})` : ''}`);
    lines.push(`      ${t.url}`);
    return lines.join('\n');
  },
  more: (n) => `  …and ${n} more (see the run)`,
  join: '\n\n',
};

/**
 * The summary as Markdown (a CI job summary or one pull/merge-request comment, starting with
 * SUMMARY_MARKER) or plain text (a terminal). Never longer than `maxChars`: the lists share what the
 * counts leave, in order (new failures first), and each cut list ends with how many it left out.
 */
export function renderRunSummary(s: RunSummaryResponse, opts: RenderOptions): string {
  const style = opts.format === 'markdown' ? markdown : text;
  const max = opts.maxChars ?? SUMMARY_MAX_CHARS;
  const head = style.head(s);
  const foot = style.foot(s);
  const parts = sections(s, opts.format);
  let remaining = max - head.length - foot.length - style.join.length * (parts.length + 1) - LIST_OVERHEAD * parts.length;
  const rendered = parts.map((sec, i) => {
    const share = Math.max(0, Math.floor(remaining / (parts.length - i)));
    const lines: string[] = [];
    let used = 0;
    for (const item of sec.list.items) {
      const line = style.item(item);
      if (used + line.length + 1 > share) break;
      lines.push(line);
      used += line.length + 1;
    }
    remaining -= used;
    const left = sec.list.total - lines.length;
    if (left > 0) lines.push(style.more(left, s));
    return [style.heading(sec.heading, sec.list.total), ...lines].join('\n');
  });
  const out = [head, ...rendered, foot].join(style.join);
  // The budget above already keeps within `max`; this only guards a caller's tiny maxChars.
  return out.length <= max ? out : `${out.slice(0, Math.max(0, max - 1))}…`;
}
