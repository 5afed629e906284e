import { TestReportClient } from '@testreport/client/core';
import type { ResponseOf } from '@testreport/contract';
import type { Command } from 'commander';
import { command } from '../lib/action.js';
import type { Context } from '../lib/context.js';
import { clearSession, saveSession } from '../lib/credentials.js';
import { UsageError } from '../lib/errors.js';
import { ask } from '../lib/prompt.js';
import { VERSION } from '../lib/version.js';

export interface LoginResult {
  user: ResponseOf<'auth.login'>['user'];
  expiresAt: string;
  url: string;
  /** Where the session was stored (mode 0600). */
  credentialsFile: string;
}

/** Signs in on the server in force and stores the session for later commands. */
export async function login(ctx: Context, input: { email: string; password: string }): Promise<LoginResult> {
  const client = new TestReportClient({ url: ctx.url, userAgent: `testreport-cli/${VERSION}`, http: 'node', allowInsecureHttp: ctx.opts.allowInsecureHttp, warn: (m) => ctx.out.warn(m) });
  const res = await client.auth.login(input);
  const credentialsFile = saveSession(
    { url: ctx.url, email: res.user.email, sessionCookie: res.sessionCookie, expiresAt: res.expiresAt, savedAt: new Date().toISOString() },
    ctx.env,
  );
  return { user: res.user, expiresAt: res.expiresAt, url: ctx.url, credentialsFile };
}

/** Ends the stored session on the server (when it still can) and deletes it here. */
export async function logout(ctx: Context): Promise<{ loggedOut: boolean; serverSessionEnded: boolean }> {
  let serverSessionEnded = false;
  if (ctx.config.session) {
    try {
      await ctx.client('user').auth.logout();
      serverSessionEnded = true;
    } catch {
      // An expired or already-revoked session: forgetting it locally is what matters.
    }
  }
  return { loggedOut: clearSession(ctx.env), serverSessionEnded };
}

/** Who the credentials in force belong to: an API key and its project, or a user and their teams. */
export async function whoami(ctx: Context): Promise<ResponseOf<'me'>> {
  return ctx.client().me();
}

/** E-mail and password from the flags, TESTREPORT_PASSWORD, or asked for on a terminal. */
async function credentialsFrom(flags: { email?: string; password?: string }): Promise<{ email: string; password: string }> {
  const interactive = Boolean(process.stdin.isTTY);
  const email = flags.email ?? (interactive ? (await ask('E-mail: ')).trim() : undefined);
  if (!email) throw new UsageError('no e-mail: pass --email (no terminal to ask on)');
  const password = flags.password ?? process.env.TESTREPORT_PASSWORD ?? (interactive ? await ask('Password: ', { hidden: true }) : undefined);
  if (!password) throw new UsageError('no password: pass --password or set TESTREPORT_PASSWORD (no terminal to ask on)');
  return { email, password };
}

export function registerAuth(program: Command): void {
  program
    .command('login')
    .summary('sign in and store a session for account commands')
    .description(
      'Sign in with e-mail and password. The session is stored (mode 0600) in $XDG_CONFIG_HOME/testreport/credentials.json\n' +
        '(or ~/.config/testreport/, or $TESTREPORT_CONFIG_DIR) and used by commands that need a user (keys, projects,\n' +
        'settings) and by any command when no API key is set. The password is read from --password, TESTREPORT_PASSWORD,\n' +
        'or asked for without echo.',
    )
    .option('--email <email>', 'account e-mail (asked for when missing)')
    .option('--password <password>', 'password (prefer TESTREPORT_PASSWORD or the prompt)')
    .addHelpText('after', `
Examples:
  $ reporter login --url https://testreport.example.com
  $ TESTREPORT_PASSWORD=… reporter login --email ci-admin@example.com`)
    .action(
      command({
        input: (_args, flags: { email?: string; password?: string }) => credentialsFrom(flags),
        run: login,
        print: (out, r) => out.success(`Signed in to ${r.url} as ${r.user.email} (session until ${r.expiresAt}); stored in ${r.credentialsFile}`),
      }),
    );

  program
    .command('logout')
    .summary('end the stored session and delete it')
    .addHelpText('after', `
Example:
  $ reporter logout`)
    .action(
      command({
        run: logout,
        print: (out, r, _input, ctx) => {
          const session = ctx.config.session;
          out.success(r.loggedOut ? `Signed out${session ? ` of ${session.url}` : ''}` : 'No stored session');
        },
      }),
    );

  program
    .command('whoami')
    .summary('show who the current credentials belong to')
    .addHelpText('after', `
Examples:
  $ reporter whoami
  $ TESTREPORT_API_KEY=trk_live_… reporter whoami --json`)
    .action(
      command({
        run: whoami,
        print: (out, me, _input, ctx) => {
          if (me.type === 'apiKey') {
            out.fields([
              ['credential', `API key "${me.apiKey.name}" (${me.apiKey.id})`],
              ['project', `${me.project.name} (${me.project.id})`],
              ['expires', me.apiKey.expiresAt ?? 'never'],
              ['server', ctx.url],
            ]);
          } else {
            out.fields([
              ['user', `${me.user.name} <${me.user.email}> (${me.user.id})`],
              ['teams', me.teams.map((t) => `${t.name} (${t.id}, ${t.role})`).join('; ') || '-'],
              ['server', ctx.url],
            ]);
          }
        },
      }),
    );
}
