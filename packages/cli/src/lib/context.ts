import { TestReportClient } from '@testreport/client/core';
import type { Command } from 'commander';
import { resolveConfig, type ResolvedConfig } from './config.js';
import { UsageError } from './errors.js';
import { colorLevel, Output } from './output.js';
import { confirm } from './prompt.js';
import { VERSION } from './version.js';

export interface GlobalOptions {
  json?: boolean;
  debug?: boolean;
  url?: string;
  apiKey?: string;
  project?: string;
  allowInsecureHttp?: boolean;
  color?: boolean;
  yes?: boolean;
}

/** Which credential a command wants: most accept either; account actions need the signed-in user. */
export type AuthNeed = 'any' | 'user' | 'none';

/**
 * Where a command runs. The process's by default; tests pass their own environment (config dir,
 * no TESTREPORT_* from the developer's shell), working directory and streams.
 */
export interface ContextIO {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  stdout?: NodeJS.WritableStream;
  stderr?: NodeJS.WritableStream;
  /** Whether there is a person at a terminal to ask (confirmations, prompts). */
  interactive?: boolean;
}

/**
 * What every command function gets: the configuration in force, SDK clients with the right
 * credential, the project to work on, and confirmation of destructive actions. Commands return
 * their result; only the printing layer (lib/action.ts) writes to `out`.
 */
export class Context {
  readonly out: Output;
  readonly config: ResolvedConfig;
  readonly env: NodeJS.ProcessEnv;
  readonly interactive: boolean;
  /** The working folder: where files a command writes (baselines pull) go. */
  readonly cwd: string;
  private cachedProject?: Promise<string>;
  private clients = new Map<AuthNeed, TestReportClient>();

  constructor(
    readonly opts: GlobalOptions,
    io: ContextIO = {},
  ) {
    this.env = io.env ?? process.env;
    this.interactive = io.interactive ?? Boolean(process.stdin.isTTY);
    this.cwd = io.cwd ?? process.cwd();
    this.out = new Output(Boolean(opts.json), colorLevel((io.stdout ?? process.stdout) as NodeJS.WriteStream, this.env, opts.color === false), io.stdout, io.stderr);
    this.config = resolveConfig({ url: opts.url, apiKey: opts.apiKey, projectId: opts.project }, { env: this.env, cwd: io.cwd });
  }

  static from(cmd: Command): Context {
    return new Context(cmd.optsWithGlobals() as GlobalOptions);
  }

  get url(): string {
    return this.config.settings.url.value;
  }

  /**
   * The SDK client with the right credential. An API key (flag, env, files) wins for reporting and
   * reading; the stored session wins for account actions (keys, projects), which keys may not do.
   */
  client(need: AuthNeed = 'any', patience?: { maxRetries: number; retryBudgetMs: number }): TestReportClient {
    const cached = this.clients.get(need);
    if (cached) return cached;
    const apiKey = this.config.settings.apiKey?.value;
    const session = this.config.session?.sessionCookie;
    const useSession = need === 'user' ? Boolean(session) : !apiKey && Boolean(session);
    if (need !== 'none' && !useSession && !apiKey) {
      throw new UsageError(
        need === 'user'
          ? `not signed in to ${this.url}: run \`reporter login\` first`
          : `no credentials for ${this.url}: set TESTREPORT_API_KEY (or --api-key), or run \`reporter login\``,
      );
    }
    if (this.opts.allowInsecureHttp) this.out.warn('--allow-insecure-http: credentials may be sent over plain http');
    const client = new TestReportClient({
      url: this.url,
      ...(need === 'none' ? {} : useSession ? { sessionCookie: session } : { apiKey }),
      userAgent: `testreport-cli/${VERSION}`,
      // Node's own http module is loaded already; undici would add ≈ 170 ms to every command's start.
      http: 'node',
      ...patience,
      allowInsecureHttp: this.opts.allowInsecureHttp,
      warn: (m) => this.out.warn(m),
    });
    this.clients.set(need, client);
    return client;
  }

  /** --project / TESTREPORT_PROJECT_ID / config files, else the project the API key belongs to. */
  projectId(client: TestReportClient = this.client()): Promise<string> {
    this.cachedProject ??= (async () => {
      const configured = this.config.settings.projectId?.value;
      if (configured) return configured;
      const me = await client.me();
      if (me.type === 'apiKey') return me.apiKey.projectId;
      const projects = me.teams.length;
      throw new UsageError(
        `no project chosen: pass --project <id> or set TESTREPORT_PROJECT_ID (you are in ${projects} team${projects === 1 ? '' : 's'}; \`reporter projects list\` shows the ids)`,
      );
    })();
    return this.cachedProject;
  }

  /** Destructive commands ask on a terminal; scripts must say --yes. */
  async confirm(what: string): Promise<void> {
    if (this.opts.yes) return;
    if (!this.interactive) throw new UsageError(`${what}: pass --yes to confirm (no terminal to ask on)`);
    if (!(await confirm(`${what}?`))) throw new UsageError('cancelled');
  }
}
