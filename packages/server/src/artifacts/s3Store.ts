import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { S3Client, S3ClientConfig } from '@aws-sdk/client-s3';
import { assertArtifactKey, type ArtifactStore } from './store.js';
import { storeOutage } from './storeOutages.js';

export interface S3ConnectionOptions {
  /** Omitted for AWS itself; e.g. `http://127.0.0.1:9000` for MinIO, Ceph, Swift s3api, R2. */
  endpoint?: string | null;
  region: string;
  forcePathStyle: boolean;
  /** Omitted: the SDK's default chain (environment, shared config, instance or container role). */
  credentials?: { accessKeyId: string; secretAccessKey: string } | null;
}

export interface S3StoreOptions extends S3ConnectionOptions {
  bucket: string;
  /** Prepended to every key ("" or ending in "/"), so one bucket can hold several installations. */
  prefix: string;
  /** Keys listed and deleted per request; S3 allows at most 1000 (tests use fewer to cross batches cheaply). */
  deleteBatchSize?: number;
}

/** DeleteObjects accepts at most this many keys per request. */
const MAX_DELETE_BATCH = 1000;
/** Parts are buffered in memory: PART_SIZE × QUEUE_SIZE per upload in flight. 5 MiB is S3's minimum part. */
const PART_SIZE = 5 * 1024 * 1024;
const QUEUE_SIZE = 2;

/**
 * The AWS SDK, loaded when a bucket is first used: its modules took ≈ 0.5 s of every server's start
 * (docs/benchmarks.md), and most installations keep artifacts on disk.
 */
type S3Sdk = typeof import('@aws-sdk/client-s3') & typeof import('@aws-sdk/lib-storage') & typeof import('@aws-sdk/s3-request-presigner');
let sdk: Promise<S3Sdk> | undefined;
function loadS3Sdk(): Promise<S3Sdk> {
  sdk ??= Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/lib-storage'), import('@aws-sdk/s3-request-presigner')]).then(([s3, storage, presigner]) => ({ ...s3, ...storage, ...presigner }));
  return sdk;
}

/**
 * An S3 client that also works against S3-compatible servers: checksums only where the API requires
 * them (the SDK's default CRC32 trailers are refused by many of them), and a Content-MD5 on
 * DeleteObjects, which S3 itself and older compatible servers (Swift s3api, MinIO before 2025) require.
 */
export async function createS3Client(o: S3ConnectionOptions): Promise<S3Client> {
  return s3ClientWith(await loadS3Sdk(), o);
}

function s3ClientWith(aws: S3Sdk, o: S3ConnectionOptions): S3Client {
  const config: S3ClientConfig = {
    region: o.region,
    forcePathStyle: o.forcePathStyle,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  };
  if (o.endpoint) config.endpoint = o.endpoint;
  if (o.credentials) config.credentials = o.credentials;
  const client = new aws.S3Client(config);
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const req = args.request as { headers?: Record<string, string>; body?: unknown };
      if (context.commandName === 'DeleteObjectsCommand' && req.headers && typeof req.body === 'string') {
        req.headers['content-md5'] = createHash('md5').update(req.body).digest('base64');
      }
      return next(args);
    },
    { step: 'build', name: 'testreportDeleteObjectsContentMd5' },
  );
  return client;
}

/** How long, and how often, the parts of an upload cut off by an outage are tried to be removed. */
const ABANDONED_PATIENCE_MS = 30 * 60_000;
const ABANDONED_MAX_GAP_MS = 10_000;

/**
 * Removes what is left of a multipart upload of `Key` that failed because the store went away:
 * lib-storage's own abort failed too then, and the parts would stay (invisible, but billed) until
 * a bucket lifecycle rule ends them. Tried again with backoff until the store answers; keys are
 * unique per artifact, so every unfinished upload of `Key` is the failed one. Best effort: a
 * server that stops meanwhile leaves them to the lifecycle rule (docs/deploy.md).
 */
function abandonUpload(aws: S3Sdk, client: S3Client, Bucket: string, Key: string): void {
  const until = Date.now() + ABANDONED_PATIENCE_MS;
  const attempt = async (gap: number): Promise<void> => {
    try {
      const { Uploads = [] } = await client.send(new aws.ListMultipartUploadsCommand({ Bucket, Prefix: Key }));
      for (const u of Uploads) if (u.Key === Key) await client.send(new aws.AbortMultipartUploadCommand({ Bucket, Key, UploadId: u.UploadId }));
    } catch {
      if (Date.now() + gap > until) return;
      setTimeout(() => void attempt(Math.min(gap * 2, ABANDONED_MAX_GAP_MS)), gap).unref();
    }
  };
  void attempt(1_000);
}

const isNotFound = (err: unknown) => {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NotFound' || e?.name === 'NoSuchKey' || e?.$metadata?.httpStatusCode === 404;
};

/** Artifact bytes as objects in an S3-compatible bucket, one object per key under `prefix`. */
export function createS3ArtifactStore(o: S3StoreOptions): ArtifactStore {
  let loaded: Promise<{ aws: S3Sdk; client: S3Client }> | undefined;
  const ready = () => (loaded ??= loadS3Sdk().then((aws) => ({ aws, client: s3ClientWith(aws, o) })));
  const Bucket = o.bucket;
  const batch = Math.min(o.deleteBatchSize ?? MAX_DELETE_BATCH, MAX_DELETE_BATCH);
  const objectKey = (key: string, prefix = false) => {
    assertArtifactKey(key, prefix);
    return o.prefix + (prefix && !key.endsWith('/') ? `${key}/` : key);
  };

  return {
    async put(key, body) {
      const Key = objectKey(key);
      const { aws, client } = await ready();
      // Length is unknown until the stream ends: lib-storage sends one PutObject for a body under one
      // part, a multipart upload otherwise, and aborts that upload (removing its parts) when the body
      // fails, e.g. because the artifact inspector passed the type's size cap mid-stream. The bytes are
      // counted through a generator rather than a pipe: a body's error then reaches the upload only
      // after every byte sent before it (a destroyed Transform would drop them), so whatever upload had
      // begun is the one aborted. And when S3 refuses, lib-storage leaving its loop destroys `counted`,
      // which ends the generator and so destroys the body: the request is not left paused mid-stream.
      let size = 0;
      const counted = Readable.from(
        (async function* () {
          for await (const chunk of body) {
            size += (chunk as Buffer).length;
            yield chunk as Buffer;
          }
        })(),
      );
      const upload = new aws.Upload({ client, params: { Bucket, Key, Body: counted }, partSize: PART_SIZE, queueSize: QUEUE_SIZE, leavePartsOnError: false });
      try {
        await upload.done();
      } catch (err) {
        if (storeOutage(err)) abandonUpload(aws, client, Bucket, Key);
        throw err;
      }
      return { size };
    },

    async get(key, range) {
      const { aws, client } = await ready();
      const res = await client.send(new aws.GetObjectCommand({ Bucket, Key: objectKey(key), Range: range ? `bytes=${range.start}-${range.end}` : undefined }));
      return res.Body as Readable;
    },

    async size(key) {
      const { aws, client } = await ready();
      try {
        return (await client.send(new aws.HeadObjectCommand({ Bucket, Key: objectKey(key) }))).ContentLength ?? 0;
      } catch (err) {
        if (isNotFound(err)) return null;
        throw err;
      }
    },

    async delete(key) {
      const { aws, client } = await ready();
      await client.send(new aws.DeleteObjectCommand({ Bucket, Key: objectKey(key) }));
    },

    async deletePrefix(prefix) {
      const Prefix = objectKey(prefix, true);
      const { aws, client } = await ready();
      let ContinuationToken: string | undefined;
      do {
        const page = await client.send(new aws.ListObjectsV2Command({ Bucket, Prefix, ContinuationToken, MaxKeys: batch }));
        const keys = (page.Contents ?? []).map((c) => ({ Key: c.Key! }));
        if (keys.length > 0) {
          const res = await client.send(new aws.DeleteObjectsCommand({ Bucket, Delete: { Objects: keys, Quiet: true } }));
          const failed = res.Errors ?? [];
          if (failed.length > 0) {
            throw new Error(`S3 DeleteObjects failed for ${failed.length} key(s), first ${failed[0].Key}: ${failed[0].Code} ${failed[0].Message ?? ''}`.trim());
          }
        }
        ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (ContinuationToken);
    },

    async check() {
      const { aws, client } = await ready();
      await client.send(new aws.HeadBucketCommand({ Bucket }));
    },

    async presignGet(key, opts) {
      const Key = objectKey(key);
      const { aws, client } = await ready();
      const command = new aws.GetObjectCommand({ Bucket, Key, ResponseContentType: opts.contentType, ResponseContentDisposition: opts.contentDisposition });
      return aws.getSignedUrl(client, command, { expiresIn: opts.expiresInSeconds });
    },
  };
}
