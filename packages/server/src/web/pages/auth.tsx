import { Bare } from '../layout.js';

const Notice = ({ error, info }: { error?: string; info?: string }) => (
  <>
    {error && <p class="notice error" role="alert">{error}</p>}
    {info && <p class="notice" role="status">{info}</p>}
  </>
);

/** How this server signs people in: single sign-on (its display name) and/or e-mail and password. */
export interface SignInMethods {
  ssoName: string | null;
  passwordLogin: boolean;
}

export function SignInPage({ next, error, email, methods }: { next: string; error?: string; email?: string; methods: SignInMethods }) {
  const ssoHref = `/auth/oidc/start${next === '/' ? '' : `?next=${encodeURIComponent(next)}`}`;
  return (
    <Bare title="Sign in">
      <h1>Sign in to testreport</h1>
      <Notice error={error} />
      {methods.ssoName && (
        <p>
          <a class="button primary" href={ssoHref} data-testid="sso-sign-in">{`Sign in with ${methods.ssoName}`}</a>
        </p>
      )}
      {methods.passwordLogin && (
        <>
          {methods.ssoName && <p class="muted">or with your e-mail and password</p>}
          <form class="stack" method="post" action="/signin">
            <input type="hidden" name="next" value={next} />
            <label>
              Email
              <input type="email" name="email" autocomplete="username" required value={email ?? ''} autofocus={!methods.ssoName} />
            </label>
            <label>
              Password
              <input type="password" name="password" autocomplete="current-password" required />
            </label>
            <button class={methods.ssoName ? '' : 'primary'} type="submit">Sign in</button>
          </form>
          <p class="row">
            <a href="/signup">Create an account</a>
            <a href="/forgot-password">Forgot your password?</a>
          </p>
        </>
      )}
    </Bare>
  );
}

/** The callback refused a single sign-on: why, and the way back. */
export function SignInRefusedPage({ name, message }: { name: string; message: string }) {
  return (
    <Bare title="Not signed in">
      <h1>Not signed in</h1>
      <p class="notice error" role="alert">{message}</p>
      <p class="row">
        <a href="/auth/oidc/start">{`Sign in with ${name} again`}</a>
        <a href="/">Back to sign in</a>
      </p>
    </Bare>
  );
}

export function SignUpPage({ error, info }: { error?: string; info?: string }) {
  return (
    <Bare title="Create an account">
      <h1>Create an account</h1>
      <Notice error={error} info={info} />
      {!info && (
        <form class="stack" method="post" action="/signup">
          <label>
            Name
            <input name="name" autocomplete="name" maxlength={100} />
          </label>
          <label>
            Email
            <input type="email" name="email" autocomplete="email" required />
          </label>
          <label>
            Password (8 to 256 characters)
            <input type="password" name="password" autocomplete="new-password" minlength={8} maxlength={256} required />
          </label>
          <button class="primary" type="submit">Create account</button>
        </form>
      )}
      <p><a href="/">Back to sign in</a></p>
    </Bare>
  );
}

export function ForgotPasswordPage({ error, info }: { error?: string; info?: string }) {
  return (
    <Bare title="Reset your password">
      <h1>Reset your password</h1>
      <Notice error={error} info={info} />
      {!info && (
        <form class="stack" method="post" action="/forgot-password">
          <label>
            Email
            <input type="email" name="email" autocomplete="email" required />
          </label>
          <button class="primary" type="submit">Send reset link</button>
        </form>
      )}
      <p><a href="/">Back to sign in</a></p>
    </Bare>
  );
}

export function UnverifiedPage() {
  return (
    <Bare title="Verify your e-mail">
      <h1>Verify your e-mail</h1>
      <p>Open the link we sent to your address to finish signing up, then reload this page.</p>
      <form method="post" action="/signout"><button type="submit">Sign out</button></form>
    </Bare>
  );
}

export function ErrorPage({ status, message }: { status: number; message: string }) {
  const title = status === 404 ? 'Page not found' : status === 403 ? 'Not allowed' : status === 429 ? 'Too many requests' : 'Something went wrong';
  return (
    <Bare title={title}>
      <h1>{title}</h1>
      <p>{message}</p>
      <p><a href="/">Go to the dashboard</a></p>
    </Bare>
  );
}
