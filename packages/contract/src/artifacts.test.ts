import { describe, expect, it } from 'vitest';
import { ARTIFACT_RULES, artifactRefusal, artifactTypeOf, bodyFileName, fileExtension } from './artifacts.js';

describe('the artifact type rule shared by the reporter and `reporter upload`', () => {
  it('types Playwright’s own attachments', () => {
    expect(artifactTypeOf({ name: 'screenshot', contentType: 'image/png', fileName: 'test-failed-1.png' })).toBe('screenshot');
    expect(artifactTypeOf({ name: 'video', contentType: 'video/webm', fileName: 'video.webm' })).toBe('video');
    expect(artifactTypeOf({ name: 'trace', contentType: 'application/zip', fileName: 'trace.zip' })).toBe('trace');
  });

  it('a zip is a trace unless it is named report, whatever tells that it is a zip', () => {
    expect(artifactTypeOf({ name: 'report', contentType: 'application/zip' })).toBe('report');
    expect(artifactTypeOf({ name: 'report', fileName: 'html-report.zip' })).toBe('report');
    expect(artifactTypeOf({ name: 'bundle', fileName: 'bundle.zip' })).toBe('trace');
    expect(artifactTypeOf({ name: 'trace', contentType: 'application/zip; charset=binary' })).toBe('trace');
  });

  it('types a body attachment by its content type alone, and one without a content type by extension', () => {
    expect(artifactTypeOf({ name: 'checkout', contentType: 'image/jpeg' })).toBe('screenshot');
    expect(artifactTypeOf({ name: 'clip', contentType: 'video/mp4' })).toBe('video');
    expect(artifactTypeOf({ name: 'shot', fileName: 'shot.WEBP' })).toBe('screenshot');
  });

  it('keeps an unsupported image or video format typed, so it is refused by format and counted', () => {
    expect(artifactTypeOf({ name: 'logo', contentType: 'image/svg+xml', fileName: 'logo.svg' })).toBe('screenshot');
    expect(artifactRefusal('screenshot', 'logo.svg', 10)).toBe('bad_format');
    expect(artifactTypeOf({ name: 'clip', contentType: 'video/ogg' })).toBe('video');
  });

  it('is not an artifact when it is text, JSON or a log', () => {
    expect(artifactTypeOf({ name: 'notes', contentType: 'text/plain' })).toBeNull();
    expect(artifactTypeOf({ name: 'error-context', contentType: 'text/markdown', fileName: 'error-context.md' })).toBeNull();
    expect(artifactTypeOf({ name: 'data', contentType: 'application/json' })).toBeNull();
  });

  it('refuses over the type’s cap and accepts exactly the cap', () => {
    const max = ARTIFACT_RULES.screenshot.maxBytes;
    expect(artifactRefusal('screenshot', 'a.png', max)).toBeNull();
    expect(artifactRefusal('screenshot', 'a.png', max + 1)).toBe('too_large');
    expect(artifactRefusal('trace', 'trace', 10)).toBeNull();
  });

  it('names a body after the attachment, with the extension of its content type', () => {
    expect(bodyFileName({ name: 'checkout', contentType: 'image/png' }, 'screenshot')).toBe('checkout.png');
    expect(bodyFileName({ name: 'photo', contentType: 'image/jpeg' }, 'screenshot')).toBe('photo.jpg');
    expect(bodyFileName({ name: 'already.webp', contentType: 'image/webp' }, 'screenshot')).toBe('already.webp');
    expect(bodyFileName({ name: '../x/y', contentType: 'application/zip' }, 'trace')).toBe('.._x_y.zip');
    expect(bodyFileName({ name: '', contentType: 'image/png' }, 'screenshot')).toBe('screenshot.png');
    expect(fileExtension('dir.d/file')).toBe('');
  });
});
