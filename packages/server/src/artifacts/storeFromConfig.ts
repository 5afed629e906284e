import { join } from 'node:path';
import type { ServerConfig } from '../config.js';
import { createLocalArtifactStore } from './localStore.js';
import { createS3ArtifactStore } from './s3Store.js';
import type { ArtifactStore } from './store.js';
import { withOutageAnswers } from './storeOutages.js';

// S3 bucket naming rules (3–63 lowercase letters, digits, dots, hyphens); the prefix uses key segments.
const S3_URL = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/;
const PREFIX = /^(?:[A-Za-z0-9_-][A-Za-z0-9._-]*\/)*$/;

/** Parses `s3://bucket[/prefix]`; the prefix comes back "" or ending in "/". */
export function parseS3Url(url: string): { bucket: string; prefix: string } {
  const m = S3_URL.exec(url);
  const prefix = m?.[2] ? m[2].replace(/\/*$/, '/') : '';
  if (!m || !PREFIX.test(prefix)) {
    throw new Error(`storage must be s3://<bucket>[/<prefix>] (bucket: 3–63 lowercase letters, digits, dots, hyphens; prefix: path segments of letters, digits, . _ -), got ${JSON.stringify(url)}`);
  }
  return { bucket: m[1], prefix };
}

/** The one place that picks where artifact bytes live: `--storage` / TESTREPORT_STORAGE, else the data dir. */
export function storeFromConfig(config: ServerConfig): ArtifactStore {
  return withOutageAnswers(chooseStore(config));
}

function chooseStore(config: ServerConfig): ArtifactStore {
  if (!config.storage) return createLocalArtifactStore(join(config.dataDir, 'artifacts'));
  const { bucket, prefix } = parseS3Url(config.storage);
  const { s3 } = config;
  if ((s3.accessKeyId === null) !== (s3.secretAccessKey === null)) {
    throw new Error('AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set together (or neither, for the AWS default credential chain)');
  }
  return createS3ArtifactStore({
    bucket,
    prefix,
    endpoint: s3.endpoint,
    region: s3.region,
    forcePathStyle: s3.forcePathStyle,
    credentials: s3.accessKeyId && s3.secretAccessKey ? { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey } : null,
  });
}
