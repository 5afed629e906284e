import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import type { ArtifactType } from '@testreport/contract';
import { ARTIFACT_RULES } from '@testreport/contract';
import { PayloadTooLargeError, ValidationError } from '../lib/errors.js';
import { describeFormats, detectAllowedFormat, SNIFF_BYTES } from './formats.js';

const MB = 1024 * 1024;

/**
 * A pass-through that enforces an artifact type's rules while the bytes stream by: it holds back the
 * first few KB until their magic bytes are identified (refusing other formats) and fails the stream the
 * moment the size cap is passed, so nothing past the cap is ever written.
 */
export function createArtifactInspector(type: ArtifactType) {
  const { maxBytes } = ARTIFACT_RULES[type];
  let total = 0;
  let head: Buffer[] | null = [];
  let headBytes = 0;
  let mime = '';
  const hash = createHash('sha256');

  const release = async (self: Transform) => {
    const buf = Buffer.concat(head ?? []);
    head = null;
    const found = await detectAllowedFormat(type, buf);
    if (!found) {
      throw new ValidationError('file', 'unsupported_format', `This file is not an accepted ${type} format (allowed: ${describeFormats(type)}); the format is read from the file's content, not its name`);
    }
    mime = found.mime;
    self.push(buf);
  };

  const stream = new Transform({
    transform(chunk: Buffer, _enc, cb: TransformCallback) {
      total += chunk.length;
      hash.update(chunk);
      if (total > maxBytes) {
        cb(new PayloadTooLargeError(`A ${type} can be at most ${maxBytes / MB} MB`, { field: 'file', maxBytes, type }));
        return;
      }
      if (head === null) return cb(null, chunk);
      head.push(chunk);
      headBytes += chunk.length;
      if (headBytes < SNIFF_BYTES) return cb();
      release(this).then(() => cb(), cb);
    },
    flush(cb) {
      if (head === null) return cb();
      if (headBytes === 0) return cb(new ValidationError('file', 'required', 'The file part is empty'));
      release(this).then(() => cb(), cb);
    },
  });
  return { stream, mimeType: () => mime, sha256: () => hash.digest('hex') };
}
