import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createLogger, type Logger } from './lib/logger.js';

export interface ServerConfig {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string;
  /** {app_url}. Filled in after listening when not given, so port 0 works. */
  publicUrl: string;
  /** {storage_url}; defaults to {app_url}/storage. */
  storageUrl: string;
  secret: string;
  /** Server secrets before a rotation (`TESTREPORT_SECRET_PREVIOUS`, comma-separated): values sealed under them still open. */
  previousSecrets: string[];
  signedUrlTtlSeconds: number;
  rateLimits: boolean;
  webhookAllowPrivate: boolean;
  webhookRetryBaseMs: number;
  webhookTimeoutMs: number;
  smtpUrl: string | null;
  tlsCert: string | null;
  tlsKey: string | null;
  /** Time a client has to send all request headers (Node's headersTimeout); then 408 and close. */
  headersTimeoutMs: number;
  /** Longest silence allowed while a request body arrives; a stalled upload is cut off after it. */
  bodyTimeoutMs: number;
  /** Time a client has to send a whole request, body included (Node's requestTimeout); 0 = none. */
  requestTimeoutMs: number;
  /** Open connections beyond this are closed as they arrive. */
  maxConnections: number;
  /** Injectable clock: retention, expiry and rate-limit tests move time without sleeping. */
  now: () => Date;
  logger: Logger;
  /** Background work (retention sweeper, webhook worker). Tests may turn it off and drive it by hand. */
  backgroundJobs: boolean;
  /** Artifact bytes: null = `<dataDir>/artifacts` on local disk; `s3://bucket/prefix` = S3-compatible store. */
  storage: string | null;
  s3: S3Settings;
  /** Single sign-on with OpenID Connect (docs/sso.md); null when no issuer is configured. */
  oidc: OidcSettings | null;
  /** `--password-login=off`: e-mail and password sign-in (form and `POST /auth/login`) are refused. */
  passwordLogin: boolean;
}

export interface OidcSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Shown as "Sign in with <name>". */
  name: string;
  /** Lower-case e-mail domains whose users are created on first sign-in; `*` = any. Empty: none are created. */
  allowedDomains: string[];
  /** Claim whose `team:role` values become team memberships; null = memberships are not touched. */
  teamClaim: string | null;
  /** Remove memberships the claim granted earlier once it no longer lists their team. */
  manageTeams: boolean;
  /** Plain-http issuer allowed (always for loopback issuers; otherwise only with TESTREPORT_OIDC_ALLOW_INSECURE). */
  allowInsecure: boolean;
}

/** Connection settings of `storage: s3://…`, from the usual AWS variables (see docs/deploy.md). */
export interface S3Settings {
  endpoint: string | null;
  region: string;
  forcePathStyle: boolean;
  /** Both null: the AWS SDK's default credential chain (shared config, instance or container role). */
  accessKeyId: string | null;
  secretAccessKey: string | null;
  /** Downloads answer with a redirect to a presigned S3 URL instead of streaming through the server. */
  redirectDownloads: boolean;
}

export type ConfigInput = Partial<Omit<ServerConfig, 'publicUrl' | 'storageUrl' | 's3' | 'oidc'>> & {
  publicUrl?: string;
  storageUrl?: string;
  s3?: Partial<S3Settings>;
  oidc?: Partial<OidcSettings>;
};

const flag = (v: string | undefined, dflt: boolean) => (v === undefined || v === '' ? dflt : ['1', 'true', 'on', 'yes'].includes(v.toLowerCase()));
const num = (v: string | undefined, dflt: number) => (v === undefined || v === '' ? dflt : Number(v));
const trimSlash = (u: string) => u.replace(/\/+$/, '');

/** Explicit options win over TESTREPORT_* environment variables, which win over defaults (docs/decisions.md §2). */
export function resolveConfig(input: ConfigInput = {}, env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const dataDir = resolve(input.dataDir ?? env.TESTREPORT_DATA_DIR ?? './.testreport');
  // The data dir holds the database (password and key hashes), the signing secret, mailed tokens in
  // outbox/ and artifacts: owner-only. One made 0755 by an older version is tightened.
  if (!existsSync(dataDir)) mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  else if ((statSync(dataDir).mode & 0o077) !== 0) tryChmod(dataDir, 0o700);
  const port = input.port ?? num(env.TESTREPORT_PORT, 4000);
  const host = input.host ?? env.TESTREPORT_HOST ?? '127.0.0.1';
  const publicUrl = trimSlash(input.publicUrl ?? env.TESTREPORT_PUBLIC_URL ?? (port === 0 ? '' : `http://localhost:${port}`));
  const storageUrl = trimSlash(input.storageUrl ?? env.TESTREPORT_STORAGE_URL ?? '');
  return {
    port,
    host,
    dataDir,
    databaseUrl: input.databaseUrl ?? env.TESTREPORT_DATABASE_URL ?? join(dataDir, 'testreport.db'),
    publicUrl,
    storageUrl,
    secret: input.secret ?? env.TESTREPORT_SECRET ?? loadOrCreateSecret(dataDir),
    previousSecrets: input.previousSecrets ?? (env.TESTREPORT_SECRET_PREVIOUS ?? '').split(',').map((s) => s.trim()).filter(Boolean),
    signedUrlTtlSeconds: input.signedUrlTtlSeconds ?? num(env.TESTREPORT_SIGNED_URL_TTL_SECONDS, 3600),
    rateLimits: input.rateLimits ?? (env.TESTREPORT_RATE_LIMITS ?? 'on') !== 'off',
    webhookAllowPrivate: input.webhookAllowPrivate ?? flag(env.TESTREPORT_WEBHOOK_ALLOW_PRIVATE, false),
    webhookRetryBaseMs: input.webhookRetryBaseMs ?? num(env.TESTREPORT_WEBHOOK_RETRY_BASE_MS, 10_000),
    webhookTimeoutMs: input.webhookTimeoutMs ?? num(env.TESTREPORT_WEBHOOK_TIMEOUT_MS, 10_000),
    smtpUrl: input.smtpUrl ?? env.TESTREPORT_SMTP_URL ?? null,
    tlsCert: input.tlsCert ?? env.TESTREPORT_TLS_CERT ?? null,
    tlsKey: input.tlsKey ?? env.TESTREPORT_TLS_KEY ?? null,
    headersTimeoutMs: input.headersTimeoutMs ?? num(env.TESTREPORT_HEADERS_TIMEOUT_MS, 30_000),
    bodyTimeoutMs: input.bodyTimeoutMs ?? num(env.TESTREPORT_BODY_TIMEOUT_MS, 30_000),
    requestTimeoutMs: input.requestTimeoutMs ?? num(env.TESTREPORT_REQUEST_TIMEOUT_MS, 30 * 60_000),
    maxConnections: input.maxConnections ?? num(env.TESTREPORT_MAX_CONNECTIONS, 1_000),
    now: input.now ?? (() => new Date()),
    logger: input.logger ?? createLogger(),
    backgroundJobs: input.backgroundJobs ?? true,
    storage: input.storage ?? (env.TESTREPORT_STORAGE || null),
    s3: resolveS3(input.s3 ?? {}, env),
    oidc: resolveOidc(input.oidc ?? {}, env),
    passwordLogin: input.passwordLogin ?? flag(env.TESTREPORT_PASSWORD_LOGIN, true),
  };
}

const list = (v: string | undefined) => (v ?? '').split(',').map((d) => d.trim().toLowerCase()).filter(Boolean);

function resolveOidc(input: Partial<OidcSettings>, env: NodeJS.ProcessEnv): OidcSettings | null {
  const issuer = input.issuer ?? (env.TESTREPORT_OIDC_ISSUER || null);
  if (!issuer) return null;
  const clientId = input.clientId ?? env.TESTREPORT_OIDC_CLIENT_ID ?? '';
  const clientSecret = input.clientSecret ?? env.TESTREPORT_OIDC_CLIENT_SECRET ?? '';
  if (!clientId || !clientSecret) throw new Error('--oidc-issuer needs --oidc-client-id and --oidc-client-secret (TESTREPORT_OIDC_CLIENT_ID, TESTREPORT_OIDC_CLIENT_SECRET)');
  const url = new URL(issuer);
  const insecure = flag(env.TESTREPORT_OIDC_ALLOW_INSECURE, false);
  if (url.protocol !== 'https:' && !isLoopbackHost(url.hostname) && !(input.allowInsecure ?? insecure)) {
    throw new Error(`--oidc-issuer must be https (got ${issuer}); plain http is allowed for loopback issuers, or with TESTREPORT_OIDC_ALLOW_INSECURE=true`);
  }
  return {
    issuer,
    clientId,
    clientSecret,
    name: input.name ?? (env.TESTREPORT_OIDC_NAME || 'SSO'),
    allowedDomains: input.allowedDomains?.map((d) => d.toLowerCase()) ?? list(env.TESTREPORT_OIDC_ALLOWED_DOMAINS),
    teamClaim: input.teamClaim ?? (env.TESTREPORT_OIDC_TEAM_CLAIM || null),
    manageTeams: input.manageTeams ?? flag(env.TESTREPORT_OIDC_MANAGE_TEAMS, false),
    allowInsecure: url.protocol !== 'https:',
  };
}

const isLoopbackHost = (h: string) => h === 'localhost' || h === '[::1]' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);

function resolveS3(input: Partial<S3Settings>, env: NodeJS.ProcessEnv): S3Settings {
  const endpoint = input.endpoint ?? (env.AWS_ENDPOINT_URL_S3 || env.AWS_ENDPOINT_URL || null);
  return {
    endpoint,
    region: input.region ?? (env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1'),
    // Non-AWS servers (MinIO, Ceph, Swift, Garage) rarely have wildcard DNS for bucket subdomains.
    forcePathStyle: input.forcePathStyle ?? flag(env.TESTREPORT_S3_FORCE_PATH_STYLE, endpoint !== null),
    accessKeyId: input.accessKeyId ?? (env.AWS_ACCESS_KEY_ID || null),
    secretAccessKey: input.secretAccessKey ?? (env.AWS_SECRET_ACCESS_KEY || null),
    redirectDownloads: input.redirectDownloads ?? flag(env.TESTREPORT_S3_REDIRECT_DOWNLOADS, false),
  };
}

/** {storage_url} with its default applied (it depends on {app_url}, known only after listening). */
export const storageUrlOf = (c: ServerConfig) => c.storageUrl || `${c.publicUrl}/storage`;
export const baseUrlOf = (c: ServerConfig) => `${c.publicUrl}/api/v1`;

function tryChmod(path: string, mode: number) {
  try {
    chmodSync(path, mode);
  } catch {
    // Not ours to change (another owner): leave it as the operator set it up.
  }
}

function loadOrCreateSecret(dataDir: string): string {
  const file = join(dataDir, 'secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(file, secret + '\n', { mode: 0o600 });
  return secret;
}
