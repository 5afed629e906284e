import { ASSET_URLS } from '../assets.js';
import { Bare } from '../layout.js';

/** The pages the account mails link to; their script (assets/accountFlows.ts) does the work. */
export function MailLinkPage({ flow }: { flow: 'verify' | 'reset' | 'accept' }) {
  const title = { verify: 'Verify your e-mail', reset: 'Choose a new password', accept: 'Accept the invitation' }[flow];
  return (
    <Bare title={title} flow={flow} script={ASSET_URLS.account}>
      <h1>{title}</h1>
      {flow === 'reset' && (
        <form id="form" class="stack">
          <label>
            New password (8 to 256 characters)
            <input id="password" type="password" autocomplete="new-password" minlength={8} maxlength={256} required />
          </label>
          <button class="primary" type="submit">Set password</button>
        </form>
      )}
      {flow === 'accept' && (
        <form id="login" class="stack" hidden>
          <p>Sign in with the address the invitation was sent to.</p>
          <label>
            Email
            <input id="email" type="email" autocomplete="email" required />
          </label>
          <label>
            Password
            <input id="password" type="password" autocomplete="current-password" required />
          </label>
          <button class="primary" type="submit">Sign in and accept</button>
        </form>
      )}
      <p id="status" role="status" hidden></p>
      <p><a href="/">Go to the dashboard</a></p>
    </Bare>
  );
}
