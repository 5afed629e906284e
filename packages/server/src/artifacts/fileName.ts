/**
 * The client's file name is kept only for display and Content-Disposition: no directories, no control
 * or quoting characters, bounded length. Storage keys never use it.
 */
export function sanitizeFileName(raw: string | undefined, fallback: string): string {
  const base = (raw ?? '').split(/[\\/]/).pop() ?? '';
  const cleaned = base
    .normalize('NFC')
    .replace(/[\u0000-\u001f\u007f"<>|:*?]/g, '_')
    .replace(/^\.+/, '')
    .trim()
    .slice(-200);
  return cleaned || fallback;
}

/** RFC 6266: an ASCII fallback plus the UTF-8 name. */
export function contentDisposition(kind: 'inline' | 'attachment', fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\;]/g, '_');
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}
