// Free of zod (see core.ts): the artifact rules a client checks before an upload.
export const ARTIFACT_TYPES = ['screenshot', 'video', 'trace', 'report'] as const;
export type ArtifactType = (typeof ARTIFACT_TYPES)[number];

const MB = 1024 * 1024;
/** Spec part 8: formats and caps per artifact type. Shared so the SDK refuses a doomed upload locally. */
export const ARTIFACT_RULES: Record<ArtifactType, { maxBytes: number; formats: readonly string[]; mimeTypes: readonly string[] }> = {
  screenshot: { maxBytes: 5 * MB, formats: ['png', 'jpg', 'jpeg', 'webp', 'gif'], mimeTypes: ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] },
  video: { maxBytes: 100 * MB, formats: ['webm', 'mp4', 'avi', 'mov'], mimeTypes: ['video/webm', 'video/mp4', 'video/vnd.avi', 'video/x-msvideo', 'video/quicktime'] },
  trace: { maxBytes: 50 * MB, formats: ['zip'], mimeTypes: ['application/zip'] },
  report: { maxBytes: 200 * MB, formats: ['zip'], mimeTypes: ['application/zip'] },
};

/** What an attachment says about itself: Playwright's `name` and `contentType`, and a file name if it has one. */
export interface AttachmentLike {
  name?: string;
  contentType?: string;
  fileName?: string;
}

/** The extension of a file name, lower case and without the dot ('' when there is none). */
export function fileExtension(fileName: string): string {
  const base = fileName.slice(Math.max(fileName.lastIndexOf('/'), fileName.lastIndexOf('\\')) + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
}

const mediaType = (contentType: string | undefined) => (contentType ?? '').split(';')[0].trim().toLowerCase();

/**
 * The one rule for which artifact type an attachment is, shared by the reporter and `reporter upload`:
 * by content type or extension a screenshot or a video; a zip is a trace, unless the attachment is
 * named `report`; another image or video format is still a screenshot or video (so it is refused by
 * format and counted, not silently ignored). Anything else (text, JSON, logs) is not an artifact.
 */
export function artifactTypeOf(a: AttachmentLike): ArtifactType | null {
  const ext = a.fileName ? fileExtension(a.fileName) : '';
  const media = mediaType(a.contentType);
  for (const type of ['screenshot', 'video'] as const) {
    if (ARTIFACT_RULES[type].mimeTypes.includes(media) || ARTIFACT_RULES[type].formats.includes(ext)) return type;
  }
  if (media === 'application/zip' || ext === 'zip') return a.name === 'report' ? 'report' : 'trace';
  if (media.startsWith('image/')) return 'screenshot';
  if (media.startsWith('video/')) return 'video';
  return null;
}

/** Why the server would refuse this file as `type`, checked before sending; null when it may go up. */
export function artifactRefusal(type: ArtifactType, fileName: string, size: number): 'bad_format' | 'too_large' | null {
  const rule = ARTIFACT_RULES[type];
  const ext = fileExtension(fileName);
  if (ext && !rule.formats.includes(ext)) return 'bad_format';
  if (size > rule.maxBytes) return 'too_large';
  return null;
}

const EXTENSION_BY_MEDIA_TYPE: Record<string, string> = {
  'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp', 'image/gif': 'gif',
  'video/webm': 'webm', 'video/mp4': 'mp4', 'video/quicktime': 'mov', 'video/x-msvideo': 'avi', 'video/vnd.avi': 'avi',
  'application/zip': 'zip',
};

/**
 * A file name for an attachment that has only a body: its name, given the extension of its content
 * type unless it already ends in one of the type's formats (`testInfo.attach('checkout', { body, contentType: 'image/png' })` → checkout.png).
 */
export function bodyFileName(a: AttachmentLike, type: ArtifactType): string {
  const name = (a.name ?? '').replace(/[\\/]/g, '_').trim() || type;
  if (ARTIFACT_RULES[type].formats.includes(fileExtension(name))) return name;
  return `${name}.${EXTENSION_BY_MEDIA_TYPE[mediaType(a.contentType)] ?? ARTIFACT_RULES[type].formats[0]}`;
}
