import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../config.js';
import { newId } from '../lib/ids.js';
import { startSwift, type SwiftS3 } from '../testing/swift.js';
import { createS3ArtifactStore } from './s3Store.js';
import { artifactStoreContract, readAll } from '../testing/storeContract.js';
import { parseS3Url, storeFromConfig } from './storeFromConfig.js';

const MB = 1024 * 1024;
let swift: SwiftS3;
beforeAll(async () => {
  swift = await startSwift();
}, 120_000);
afterAll(() => swift?.close());

/** Objects and unfinished multipart uploads under `prefix`, with the prefix taken off. */
const leftoversUnder = async (prefix: string) => (await swift.contents(swift.bucket, prefix)).map((k) => k.replace(prefix, ''));

// Each test gets its own prefix in the shared bucket, so "nothing left behind" is exact per test. Batches
// of 50 make 160 keys cross three list pages and DeleteObjects requests (a thousand single PUTs to a
// one-process Swift would dominate the file's run time).
artifactStoreContract(
  'S3 (OpenStack Swift s3api)',
  async () => {
    const prefix = `contract-${newId()}/`;
    return { store: createS3ArtifactStore({ ...swift.connection, bucket: swift.bucket, prefix, deleteBatchSize: 50 }), leftovers: () => leftoversUnder(prefix) };
  },
  { manyKeys: 160 },
);

describe('S3 artifact store', () => {
  it('keeps installations sharing a bucket apart by prefix', async () => {
    const a = createS3ArtifactStore({ ...swift.connection, bucket: swift.bucket, prefix: 'install-a/' });
    const b = createS3ArtifactStore({ ...swift.connection, bucket: swift.bucket, prefix: 'install-b/' });
    await a.put('projects/p/runs/r/x', Readable.from(['a']));
    await b.put('projects/p/runs/r/x', Readable.from(['bb']));
    await a.deletePrefix('projects/p/');
    expect(await a.size('projects/p/runs/r/x')).toBeNull();
    expect(await b.size('projects/p/runs/r/x')).toBe(2);
    expect(await leftoversUnder('install-b/')).toEqual(['projects/p/runs/r/x']);
  });

  it('serves an object through a presigned URL, with Range and the given headers, and only unaltered', async () => {
    const store = createS3ArtifactStore({ ...swift.connection, bucket: swift.bucket, prefix: 'presign/' });
    await store.put('projects/p/runs/r/t', Readable.from(['0123456789']));
    const url = await store.presignGet!('projects/p/runs/r/t', { expiresInSeconds: 60, contentType: 'application/zip', contentDisposition: 'attachment; filename="trace.zip"' });
    const ranged = await fetch(url, { headers: { Range: 'bytes=2-5' } });
    expect(ranged.status).toBe(206);
    expect(await ranged.text()).toBe('2345');
    expect(ranged.headers.get('content-type')).toBe('application/zip');
    expect(ranged.headers.get('content-disposition')).toBe('attachment; filename="trace.zip"');
    const tampered = url.replace('projects/p/runs/r/t', 'projects/p/runs/r/u');
    expect((await fetch(tampered)).status).toBe(403);
  });

  it('check() fails for a missing bucket or wrong credentials, and so do writes', async () => {
    await expect(createS3ArtifactStore({ ...swift.connection, bucket: 'no-such-bucket', prefix: '' }).check()).rejects.toThrow();
    const wrong = createS3ArtifactStore({ ...swift.connection, credentials: { accessKeyId: 'test:tester', secretAccessKey: 'wrong' }, bucket: swift.bucket, prefix: 'wrong/' });
    await expect(wrong.check()).rejects.toThrow();
    await expect(wrong.put('projects/p/runs/r/x', Readable.from(['x']))).rejects.toThrow();
    // A refused multipart upload stops reading the body instead of leaving it paused mid-request.
    const endless = Readable.from((function* () { for (;;) yield Buffer.alloc(MB); })());
    await expect(wrong.put('projects/p/runs/r/y', endless)).rejects.toThrow();
    expect(endless.destroyed).toBe(true);
    expect(await leftoversUnder('wrong/')).toEqual([]);
  });

  it('is what the server uses for TESTREPORT_STORAGE=s3://…, configured by the AWS variables', async () => {
    const env = {
      TESTREPORT_STORAGE: `s3://${swift.bucket}/from-env/deep`,
      AWS_ENDPOINT_URL: 'http://127.0.0.1:1', // AWS_ENDPOINT_URL_S3 wins over the all-services endpoint
      AWS_ENDPOINT_URL_S3: swift.endpoint,
      AWS_REGION: swift.connection.region,
      AWS_ACCESS_KEY_ID: swift.connection.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: swift.connection.credentials.secretAccessKey,
    };
    const config = resolveConfig({ dataDir: mkdtempSync(join(tmpdir(), 'testreport-')) }, env);
    expect(config.s3.forcePathStyle).toBe(true); // an endpoint is set, so path-style unless told otherwise
    const store = storeFromConfig(config);
    await store.check();
    await store.put('projects/p/runs/r/a', Readable.from(['hi']));
    const head = await swift.client.send(new HeadObjectCommand({ Bucket: swift.bucket, Key: 'from-env/deep/projects/p/runs/r/a' }));
    expect(head.ContentLength).toBe(2);
    expect((await readAll(await store.get('projects/p/runs/r/a'))).toString()).toBe('hi');
  });

  it('refuses a storage setting that is not s3://bucket[/prefix], naming the expected form', () => {
    expect(parseS3Url('s3://my-bucket')).toEqual({ bucket: 'my-bucket', prefix: '' });
    expect(parseS3Url('s3://my-bucket/a/b/')).toEqual({ bucket: 'my-bucket', prefix: 'a/b/' });
    for (const bad of ['file:///tmp/x', 's3://', 's3://Upper', 's3://bucket/../x', 's3://bucket//x', 'bucket/prefix']) {
      expect(() => parseS3Url(bad)).toThrow('storage must be s3://<bucket>[/<prefix>]');
    }
    const config = resolveConfig({ dataDir: mkdtempSync(join(tmpdir(), 'testreport-')), storage: 's3://bucket', s3: { accessKeyId: 'only-the-id', secretAccessKey: null } }, {});
    expect(() => storeFromConfig(config)).toThrow('AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set together');
  });
});
