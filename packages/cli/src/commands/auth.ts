import { TestReportClient } from '@testreport/client';
import type { Command } from 'commander';
import { action } from '../lib/action.js';
import { clearSession, saveSession } from '../lib/credentials.js';
import { UsageError } from '../lib/errors.js';
import { ask } from '../lib/prompt.js';
import { VERSION } from '../lib/version.js';

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
      action(async (ctx, flags: { email?: string; password?: string }) => {
        const interactive = Boolean(process.stdin.isTTY);
        const email = flags.email ?? (interactive ? (await ask('E-mail: ')).trim() : undefined);
        if (!email) throw new UsageError('no e-mail: pass --email (no terminal to ask on)');
        const password = flags.password ?? process.env.TESTREPORT_PASSWORD ?? (interactive ? await ask('Password: ', { hidden: true }) : undefined);
        if (!password) throw new UsageError('no password: pass --password or set TESTREPORT_PASSWORD (no terminal to ask on)');
        const client = new TestReportClient({ url: ctx.url, userAgent: `testreport-cli/${VERSION}`, allowInsecureHttp: ctx.opts.allowInsecureHttp, warn: (m) => ctx.out.warn(m) });
        const res = await client.auth.login({ email, password });
        const path = saveSession({ url: ctx.url, email: res.user.email, sessionCookie: res.sessionCookie, expiresAt: res.expiresAt, savedAt: new Date().toISOString() });
        if (ctx.out.json) return ctx.out.data({ user: res.user, expiresAt: res.expiresAt, url: ctx.url, credentialsFile: path });
        ctx.out.success(`Signed in to ${ctx.url} as ${res.user.email} (session until ${res.expiresAt}); stored in ${path}`);
      }),
    );

  program
    .command('logout')
    .summary('end the stored session and delete it')
    .addHelpText('after', `
Example:
  $ reporter logout`)
    .action(
      action(async (ctx) => {
        const session = ctx.config.session;
        let serverEnded = false;
        if (session) {
          try {
            await ctx.client('user').auth.logout();
            serverEnded = true;
          } catch {
            // An expired or already-revoked session: forgetting it locally is what matters.
          }
        }
        const removed = clearSession();
        if (ctx.out.json) return ctx.out.data({ loggedOut: removed, serverSessionEnded: serverEnded });
        ctx.out.success(removed ? `Signed out${session ? ` of ${session.url}` : ''}` : 'No stored session');
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
      action(async (ctx) => {
        const me = await ctx.client().me();
        if (ctx.out.json) return ctx.out.data(me);
        if (me.type === 'apiKey') {
          ctx.out.fields([
            ['credential', `API key "${me.apiKey.name}" (${me.apiKey.id})`],
            ['project', `${me.project.name} (${me.project.id})`],
            ['expires', me.apiKey.expiresAt ?? 'never'],
            ['server', ctx.url],
          ]);
        } else {
          ctx.out.fields([
            ['user', `${me.user.name} <${me.user.email}> (${me.user.id})`],
            ['teams', me.teams.map((t) => `${t.name} (${t.id}, ${t.role})`).join('; ') || '-'],
            ['server', ctx.url],
          ]);
        }
      }),
    );
}
