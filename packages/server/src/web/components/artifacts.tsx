import type { Artifact } from '@testreport/contract';

/** Link to the trace viewer served by this server; the trace URL must be encoded or its `&token` is lost. */
export const traceViewerUrl = (signedUrl: string) => `/trace/index.html?trace=${encodeURIComponent(signedUrl)}`;

const size = (n: number) => (n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`);

export function Artifacts({ items, secureContext }: { items: Artifact[]; secureContext: boolean }) {
  if (items.length === 0) return <p class="muted">No attachments were uploaded for this test.</p>;
  const shots = items.filter((a) => a.type === 'screenshot');
  const videos = items.filter((a) => a.type === 'video');
  const traces = items.filter((a) => a.type === 'trace');
  const others = items.filter((a) => !['screenshot', 'video', 'trace'].includes(a.type));
  return (
    <>
      {shots.length > 0 && (
        <div class="shots">
          {shots.map((a) => (
            <figure>
              <a href={a.url}>
                <img src={a.url} alt={`Screenshot ${a.fileName}`} loading="lazy" />
              </a>
              <figcaption class="small muted">{a.fileName}</figcaption>
            </figure>
          ))}
        </div>
      )}
      {videos.length > 0 && (
        <div class="shots">
          {videos.map((a) => (
            <figure>
              <video src={a.url} controls preload="metadata" aria-label={`Video ${a.fileName}`}></video>
              <figcaption class="small muted">{a.fileName}</figcaption>
            </figure>
          ))}
        </div>
      )}
      {traces.length > 0 && (
        <ul>
          {traces.map((a) => (
            <li>
              <a href={traceViewerUrl(a.url)} target="_blank" rel="noopener">Open trace</a> <span class="muted small">({a.fileName}, {size(a.fileSize)})</span>{' '}
              <a href={a.url} download>download</a>
            </li>
          ))}
          {!secureContext && (
            <li class="notice">
              The trace viewer needs a secure context (HTTPS, or <code>localhost</code>): over plain HTTP on another host, download the trace and open it with <code>npx playwright show-trace</code>.
            </li>
          )}
        </ul>
      )}
      {others.length > 0 && (
        <ul>
          {others.map((a) => (
            <li>
              <a href={a.url} download>{a.fileName}</a> <span class="muted small">({a.type}, {size(a.fileSize)})</span>
            </li>
          ))}
        </ul>
      )}
      <p class="muted small">Links to files are valid for about an hour; reload the page for fresh ones.</p>
    </>
  );
}
