import { SEARCH_FIELDS, SEARCH_MIN_CHARS, type SearchField, type SearchHit, type SearchSnippet } from '@testreport/contract';
import { BranchSelect, WindowSelect } from '../components/historyFilters.js';
import { Pager } from '../components/pager.js';
import { StatusBadge } from '../components/status.js';
import { shortSha, when } from '../format.js';
import { Layout, type NavData } from '../layout.js';

export type SearchFilters = { q: string; in?: SearchField; branch?: string; days?: string };

const FIELD_LABELS: Record<SearchField, string> = { titles: 'titles', errors: 'error messages', output: 'output' };

/**
 * The snippet with its matches in `<mark>`: every piece is a JSX text child, so Hono escapes it;
 * the offsets only decide where the text is cut (contract `searchSnippet`).
 */
export function Snippet({ s }: { s: SearchSnippet }) {
  const parts: (string | ReturnType<typeof Mark>)[] = [];
  let at = 0;
  for (const h of s.highlights) {
    parts.push(s.text.slice(at, h.start), <Mark text={s.text.slice(h.start, h.end)} />);
    at = h.end;
  }
  parts.push(s.text.slice(at));
  return <pre class="snippet">{parts}</pre>;
}
const Mark = ({ text }: { text: string }) => <mark>{text}</mark>;

/** `/projects/:id/search`: results whose titles, errors or output contain the text, newest first. */
export function SearchPage(props: {
  nav: NavData; projectId: string; filters: SearchFilters; branches: string[]; problem?: string;
  hits: SearchHit[]; total: number; page: number; pageSize: number;
}) {
  const { filters } = props;
  const path = `/projects/${props.projectId}/search`;
  return (
    <Layout title={filters.q ? `Search: ${filters.q}` : 'Search'} nav={props.nav}>
      <h1>Search</h1>
      <p class="muted">Test titles, error messages and output of every result still retained, newest first. At least {SEARCH_MIN_CHARS} characters, case-insensitive, taken literally.</p>
      <form class="filters" method="get" action={path} role="search" aria-label="Search results">
        <label>
          Text
          <input type="search" name="q" value={filters.q} minlength={SEARCH_MIN_CHARS} maxlength={200} required />
        </label>
        <label>
          In
          <select name="in">
            <option value="">titles, errors and output</option>
            {SEARCH_FIELDS.map((f) => <option value={f} selected={filters.in === f}>{FIELD_LABELS[f]}</option>)}
          </select>
        </label>
        <BranchSelect branches={props.branches} selected={filters.branch} />
        <WindowSelect label="Stored in" selected={filters.days} />
        <button type="submit">Search</button>
      </form>
      {props.problem ? (
        <p class="muted" role="status">{props.problem}</p>
      ) : props.hits.length === 0 ? (
        <p class="muted" role="status">Nothing found.</p>
      ) : (
        <>
          <ol class="search-hits">
            {props.hits.map((h) => (
              <li>
                <div>
                  <a href={`/tests/${h.testId}`}>{h.fullTitle}</a> <StatusBadge status={h.status} />
                </div>
                <div class="muted small">
                  <a href={`/runs/${h.runId}`}>{when(h.createdAt)}</a> · {[h.branch, h.commitSha && shortSha(h.commitSha)].filter(Boolean).join(' @ ')} · in {FIELD_LABELS[h.snippet.in]}
                </div>
                <Snippet s={h.snippet} />
              </li>
            ))}
          </ol>
          <Pager path={path} query={{ q: filters.q, in: filters.in, branch: filters.branch, days: filters.days }} page={props.page} pageSize={props.pageSize} total={props.total} label="results" />
        </>
      )}
    </Layout>
  );
}
