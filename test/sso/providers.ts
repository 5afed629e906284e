// Two OpenID providers on loopback for the single sign-on tests: the certified `oidc-provider`
// (its dev login page stands in for a company's) and a tiny hand-made issuer that answers with a
// chosen kind of bad ID token, which a correct provider never sends.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import Provider from 'oidc-provider';

export const CLIENT = { id: 'testreport', secret: 'a-client-secret-of-the-tests' };

/** A loopback HTTP server whose handler is set later (the issuer URL must be known first). */
async function listen(): Promise<{ server: Server; url: string; handle(fn: (req: IncomingMessage, res: ServerResponse) => void): void }> {
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_q, r) => r.writeHead(503).end();
  const server = createServer((req, res) => handler(req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, handle: (fn) => (handler = fn) };
}

const close = (server: Server) => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); });

/** Claims of the provider's users by login; tests change them between sign-ins. */
export type Accounts = Map<string, { email: string; email_verified: boolean; name: string; groups?: string[] }>;

/** oidc-provider with one confidential client; any password is accepted for a login listed in `accounts`. */
export async function startOidcProvider(accounts: Accounts) {
  const { server, url, handle } = await listen();
  return {
    issuer: url,
    /** Registers the client once the server that is its redirect target knows its own address. */
    start(redirectUris: string[]) {
      const provider = new Provider(url, {
        clients: [{ client_id: CLIENT.id, client_secret: CLIENT.secret, redirect_uris: redirectUris, grant_types: ['authorization_code'], response_types: ['code'] }],
        cookies: { keys: [randomBytes(32).toString('base64url')] },
        claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'groups'] },
        // The claims of the scopes asked for go into the ID token (no userinfo round trip needed).
        conformIdTokenClaims: false,
        async findAccount(_ctx, id) {
          const a = accounts.get(id);
          if (!a) return undefined;
          return { accountId: id, claims: async () => ({ sub: `sub-${id}`, ...a }) };
        },
      });
      const callback = provider.callback();
      handle((req, res) => void callback(req, res));
    },
    close: () => close(server),
  };
}

export type FakeMode = 'good' | 'wrong-aud' | 'expired' | 'other-key';

/**
 * A minimal issuer: discovery, JWKS, an authorization endpoint that signs `eve@fake.test` in at once,
 * and a token endpoint whose ID token is bad in the way `mode` says.
 */
export async function startFakeIssuer() {
  const { server, url, handle } = await listen();
  const key = await generateKeyPair('RS256');
  const otherKey = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(key.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  const nonces = new Map<string, string>();
  const fake = { issuer: url, mode: 'good' as FakeMode, close: () => close(server) };
  const json = (res: ServerResponse, body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));

  async function idToken(nonce: string) {
    const now = Math.floor(Date.now() / 1000);
    const expired = fake.mode === 'expired';
    return new SignJWT({ nonce, email: 'eve@fake.test', email_verified: true, name: 'Eve' })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setIssuer(url)
      .setSubject('eve')
      .setAudience(fake.mode === 'wrong-aud' ? 'another-client' : CLIENT.id)
      .setIssuedAt(expired ? now - 7200 : now)
      .setExpirationTime(expired ? now - 3600 : now + 300)
      .sign(fake.mode === 'other-key' ? otherKey.privateKey : key.privateKey);
  }

  handle((req, res) => {
    const u = new URL(req.url!, url);
    if (u.pathname === '/.well-known/openid-configuration') {
      return json(res, {
        issuer: url, authorization_endpoint: `${url}/authorize`, token_endpoint: `${url}/token`, jwks_uri: `${url}/jwks`,
        response_types_supported: ['code'], subject_types_supported: ['public'], id_token_signing_alg_values_supported: ['RS256'],
        code_challenge_methods_supported: ['S256'], token_endpoint_auth_methods_supported: ['client_secret_basic'],
      });
    }
    if (u.pathname === '/jwks') return json(res, { keys: [jwk] });
    if (u.pathname === '/authorize') {
      const code = randomBytes(16).toString('hex');
      nonces.set(code, u.searchParams.get('nonce') ?? '');
      const back = new URL(u.searchParams.get('redirect_uri')!);
      back.searchParams.set('code', code);
      back.searchParams.set('state', u.searchParams.get('state') ?? '');
      return res.writeHead(302, { location: back.href }).end();
    }
    if (u.pathname === '/token' && req.method === 'POST') {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', async () => {
        const code = new URLSearchParams(body).get('code') ?? '';
        const nonce = nonces.get(code);
        nonces.delete(code);
        if (nonce === undefined) return res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'invalid_grant' }));
        json(res, { access_token: randomBytes(16).toString('hex'), token_type: 'Bearer', expires_in: 300, id_token: await idToken(nonce) });
      });
      return;
    }
    res.writeHead(404).end();
  });
  return fake;
}
