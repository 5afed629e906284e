import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { TestReportClient } from '@testreport/client';
import { generated, jpeg, startSwift, startTestServer, upload, webm, zip, type SwiftS3, type TestServer } from '@testreport/server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const SERVER_BIN = join(ROOT, 'packages/server/dist/bin.js');
const MB = 1024 * 1024;
const DAY = 86_400_000;

let swift: SwiftS3;
beforeAll(async () => {
  swift = await startSwift();
}, 120_000);
afterAll(() => swift?.close());

const keysUnder = (prefix: string) => swift.contents(swift.bucket, prefix);

/** `reporter-server serve` from dist, its first-run credentials read from stdout. */
async function serveBinary(args: string[], env: Record<string, string>) {
  if (!existsSync(SERVER_BIN)) throw new Error(`${SERVER_BIN} is missing: run \`npm run build\` before this test`);
  const childEnv: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('TESTREPORT_') && !k.startsWith('AWS_')) childEnv[k] = v;
  const dataDir = mkdtempSync(join(tmpdir(), 'testreport-s3-'));
  const child: ChildProcess = spawn(process.execPath, [SERVER_BIN, 'serve', '--port', '0', '--data-dir', dataDir, ...args], { env: { ...childEnv, TESTREPORT_LOG: 'error', ...env } });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const url = await new Promise<string>((resolveUrl, reject) => {
    child.stdout!.on('data', (d) => {
      stdout += d;
      const m = /testreport listening on (\S+)/.exec(stdout);
      if (m) resolveUrl(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`server exited ${code}: ${stderr}`)));
  });
  const field = (name: string) => new RegExp(`^ +${name} +(\\S+)$`, 'm').exec(stdout)![1];
  return {
    url,
    apiKey: field('API key'),
    projectId: field('project'),
    async close() {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

describe('server with --storage s3://… on a real S3-compatible server', () => {
  it('stores an upload in the bucket, serves ranges through the signed link, and deletes the objects with the run', async () => {
    const server = await serveBinary(['--storage', `s3://${swift.bucket}/e2e`], {
      AWS_ENDPOINT_URL_S3: swift.endpoint,
      AWS_REGION: swift.connection.region,
      AWS_ACCESS_KEY_ID: swift.connection.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: swift.connection.credentials.secretAccessKey,
    });
    try {
      const client = new TestReportClient({ url: server.url, apiKey: server.apiKey, validateResponses: true });
      const run = await client.runs.create({ projectId: server.projectId, status: 'running' });
      // Over one 5 MiB part: the server streams it into the bucket as a multipart upload.
      const video = webm(6 * MB);
      video.fill(0x42, 4096, 4096 + 100);
      const artifact = await client.artifacts.upload({ file: video, fileName: 'checkout.webm', type: 'video', runId: run.id, projectId: server.projectId });
      expect(artifact.fileSize).toBe(video.length);

      const runPrefix = `e2e/projects/${server.projectId}/runs/${run.id}/`;
      expect(await keysUnder(runPrefix)).toEqual([`${runPrefix}${artifact.id}`]);
      const head = await swift.client.send(new HeadObjectCommand({ Bucket: swift.bucket, Key: `${runPrefix}${artifact.id}` }));
      expect(head.ContentLength).toBe(video.length);

      const { data } = await client.artifacts.list({ runId: run.id });
      const ranged = await fetch(data[0].url, { headers: { Range: 'bytes=4096-4195' } });
      expect(ranged.status).toBe(206);
      expect(ranged.headers.get('content-range')).toBe(`bytes 4096-4195/${video.length}`);
      expect(Buffer.from(await ranged.arrayBuffer()).equals(video.subarray(4096, 4196))).toBe(true);
      const whole = await fetch(data[0].url);
      expect(whole.status).toBe(200);
      expect(whole.headers.get('content-type')).toBe('video/webm');
      expect(Buffer.from(await whole.arrayBuffer()).equals(video)).toBe(true);

      await client.runs.delete(run.id);
      expect(await keysUnder(runPrefix)).toEqual([]);
      expect((await fetch(data[0].url)).status).toBe(404);
    } finally {
      await server.close();
    }
  });
});

describe('S3 store in a running server: redirects, retention and project deletion', () => {
  let clock = new Date('2026-01-01T00:00:00Z');
  let t: TestServer;
  const prefix = 'inproc/';
  beforeAll(async () => {
    const { endpoint, region, credentials } = swift.connection;
    t = await startTestServer({
      now: () => clock,
      storage: `s3://${swift.bucket}/inproc`,
      s3: { endpoint, region, forcePathStyle: true, accessKeyId: credentials.accessKeyId, secretAccessKey: credentials.secretAccessKey, redirectDownloads: true },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  const uploadTrace = async (runId: string, projectId = t.projectId, apiKey = t.apiKey) => {
    const content = zip({ 'trace.trace': 'x'.repeat(1000) });
    const res = await upload(t, { auth: apiKey, fields: { type: 'trace', runId, projectId }, fileName: 'trace.zip', content });
    expect(res.status).toBe(201);
    return { artifact: res.body, content };
  };
  const newRun = async (projectId = t.projectId, apiKey = t.apiKey) => (await t.api('POST', '/runs', { auth: apiKey, body: { projectId, status: 'running' } })).body.id as string;

  it('answers the signed link with a redirect to a presigned URL that serves the bytes and ranges', async () => {
    const runId = await newRun();
    const { artifact, content } = await uploadTrace(runId);
    const redirect = await fetch(artifact.url, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('location')).toMatch(new RegExp(`^${swift.endpoint}/${swift.bucket}/inproc/projects/`));

    const ranged = await fetch(artifact.url, { headers: { Range: 'bytes=0-3' } });
    expect(ranged.status).toBe(206);
    expect(Buffer.from(await ranged.arrayBuffer()).equals(content.subarray(0, 4))).toBe(true);
    expect(ranged.headers.get('content-disposition')).toContain('attachment; filename="trace.zip"');
    expect(ranged.headers.get('content-type')).toBe('application/zip');
    // The server's own signature still guards the link: a forged token never reaches the bucket.
    expect((await fetch(artifact.url.replace(/token=[^&]+/, 'token=forged'), { redirect: 'manual' })).status).toBe(403);
  });

  it('refuses an upload over its type\'s cap mid-stream and leaves no object or unfinished upload behind', async () => {
    const runId = await newRun();
    // 7 MB sent for a screenshot (at most 5 MB): refused the moment the cap is passed.
    const res = await upload(t, { auth: t.apiKey, fields: { type: 'screenshot', runId, projectId: t.projectId }, fileName: 'big.jpg', content: generated(jpeg(), 7 * MB) });
    expect(res.status).toBe(413);
    expect(res.body.error.details).toMatchObject({ field: 'file', maxBytes: 5 * MB });
    expect(await keysUnder(`${prefix}projects/${t.projectId}/runs/${runId}/`)).toEqual([]); // no object, no unfinished upload
  });

  it('retention sweeps and project deletion remove the objects', async () => {
    const other = await t.createOtherTenant();
    expect((await t.api('PATCH', `/projects/${other.projectId}/settings`, { auth: other.owner, body: { dataRetentionDays: 7 } })).status).toBe(200);
    const oldRun = await newRun(other.projectId, other.apiKey);
    await uploadTrace(oldRun, other.projectId, other.apiKey);
    clock = new Date(clock.getTime() + 8 * DAY);
    const recentRun = await newRun(other.projectId, other.apiKey);
    await uploadTrace(recentRun, other.projectId, other.apiKey);
    const projectPrefix = `${prefix}projects/${other.projectId}/`;
    expect(await keysUnder(`${projectPrefix}runs/${oldRun}/`)).toHaveLength(1);

    expect(await t.server.services.retention.sweepOnce()).toEqual({ deletedRuns: 1 });
    expect(await keysUnder(`${projectPrefix}runs/${oldRun}/`)).toEqual([]);
    expect(await keysUnder(`${projectPrefix}runs/${recentRun}/`)).toHaveLength(1);

    expect((await t.api('DELETE', `/projects/${other.projectId}`, { auth: other.owner })).status).toBe(200);
    expect(await keysUnder(projectPrefix)).toEqual([]);
  });
});
