import { withQuery } from '../format.js';

/** Server-side pagination: links keep every other filter of the URL. */
export function Pager(props: { path: string; query: Record<string, string | undefined>; page: number; pageSize: number; total: number; label: string }) {
  const pages = Math.max(1, Math.ceil(props.total / props.pageSize));
  if (pages <= 1) return <p class="muted small">{props.total === 1 ? `1 ${props.label.replace(/s$/, '')}` : `${props.total} ${props.label}`}</p>;
  return (
    <nav class="pager" aria-label={`Pages of ${props.label}`}>
      {props.page > 1 ? <a href={withQuery(props.path, props.query, { page: props.page - 1 })} rel="prev">← Previous</a> : <span class="muted">← Previous</span>}
      <span>
        Page {props.page} of {pages} · {props.total} {props.label}
      </span>
      {props.page < pages ? <a href={withQuery(props.path, props.query, { page: props.page + 1 })} rel="next">Next →</a> : <span class="muted">Next →</span>}
    </nav>
  );
}
