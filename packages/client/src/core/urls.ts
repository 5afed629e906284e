/** {app_url} and {base_url} of docs/decisions.md §1: a trailing slash is ignored, {base_url} defaults to {app_url}/api/v1. */
export function resolveUrls(url: string, baseUrl?: string): { appUrl: string; baseUrl: string } {
  const appUrl = stripSlash(checkedUrl(url, 'url'));
  return { appUrl, baseUrl: baseUrl ? stripSlash(checkedUrl(baseUrl, 'baseUrl')) : `${appUrl}/api/v1` };
}

function checkedUrl(value: string, option: string): string {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new TypeError(`${option} "${value}" is not an absolute URL (expected e.g. https://testreport.example.com)`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new TypeError(`${option} must be http:// or https://, got ${parsed.protocol}`);
  if (parsed.search || parsed.hash) throw new TypeError(`${option} must not carry a query or fragment`);
  return value;
}

const stripSlash = (u: string) => u.replace(/\/+$/, '');

/** Fills `:name` segments of a Hono-style path. */
export function fillPath(path: string, params: Record<string, unknown> | undefined): string {
  return path.replace(/:([A-Za-z_]\w*)/g, (_, name: string) => {
    const value = params?.[name];
    if (value === undefined || value === null || value === '') throw new TypeError(`Missing path parameter "${name}" for ${path}`);
    return encodeURIComponent(String(value));
  });
}

/** Query strings: undefined and null are left out, everything else is sent as text. */
export function toQueryString(query: Record<string, unknown> | undefined): string {
  if (!query) return '';
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) for (const v of value) search.append(key, String(v));
    else search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}
