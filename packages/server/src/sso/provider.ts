import { createHmac } from 'node:crypto';
import * as oidc from 'openid-client';
import type { OidcSettings } from '../config.js';

/** What the callback learned from a verified ID token (and the userinfo endpoint where needed). */
export interface VerifiedIdentity {
  issuer: string;
  subject: string;
  email: string | null;
  emailVerified: boolean;
  name: string | null;
  claims: Record<string, unknown>;
}

/**
 * The OpenID provider as openid-client sees it: discovery, the authorization URL with PKCE, state and
 * nonce, and the code exchange with every ID token check (signature against the issuer's JWKS, iss,
 * aud, exp, iat, nonce). No JOSE here: the library does all of it.
 *
 * The discovered metadata is cached per process (a cache, not state: any server rebuilds it).
 */
export function createOidcProvider(settings: OidcSettings, secret: string, redirectUri: () => string) {
  let discovered: Promise<oidc.Configuration> | null = null;
  const configuration = () => {
    discovered ??= discover().catch((err) => {
      discovered = null; // the next sign-in tries again (the issuer may have been down)
      throw err;
    });
    return discovered;
  };
  async function discover() {
    const config = await oidc.discovery(new URL(settings.issuer), settings.clientId, undefined, oidc.ClientSecretBasic(settings.clientSecret), {
      // Only loopback issuers (tests, a local Keycloak) or an explicit TESTREPORT_OIDC_ALLOW_INSECURE reach here with http.
      execute: settings.allowInsecure ? [oidc.allowInsecureRequests] : [],
      timeout: 10,
    });
    // The ID token comes straight from the token endpoint, where the spec lets a client skip its
    // signature; we check it anyway, so a token signed by any key but the issuer's is refused.
    oidc.enableNonRepudiationChecks(config);
    return config;
  }

  /** The PKCE verifier and nonce of a sign-in follow from its state and the server secret: nothing to store. */
  const derive = (purpose: string, state: string) => createHmac('sha256', secret).update(`oidc:${purpose}:${state}`).digest('base64url');

  return {
    async authorizationUrl(state: string): Promise<URL> {
      const config = await configuration();
      return oidc.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri(),
        scope: 'openid email profile',
        response_type: 'code',
        state,
        nonce: derive('nonce', state),
        code_challenge: await oidc.calculatePKCECodeChallenge(derive('pkce', state)),
        code_challenge_method: 'S256',
      });
    },

    /** Exchanges the code of `callbackUrl`; throws when anything about the answer or the ID token is wrong. */
    async finish(callbackUrl: URL, state: string): Promise<VerifiedIdentity> {
      const config = await configuration();
      const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: derive('pkce', state),
        expectedState: state,
        expectedNonce: derive('nonce', state),
        idTokenExpected: true,
      });
      const idToken = tokens.claims();
      if (!idToken) throw new Error('the provider sent no ID token');
      let claims: Record<string, unknown> = { ...idToken };
      // Some providers put e-mail and groups only into userinfo unless asked otherwise.
      const needsUserinfo = claims.email === undefined || (settings.teamClaim !== null && claims[settings.teamClaim] === undefined);
      if (needsUserinfo && config.serverMetadata().userinfo_endpoint) {
        const info = await oidc.fetchUserInfo(config, tokens.access_token, idToken.sub);
        claims = { ...info, ...claims };
      }
      const email = typeof claims.email === 'string' ? claims.email.toLowerCase() : null;
      return {
        issuer: idToken.iss,
        subject: idToken.sub,
        email,
        // Entra ID sends no email_verified; its optional claim xms_edov says the domain owner verified the address.
        emailVerified: [claims.email_verified, claims.xms_edov].some((v) => v === true || v === 'true'),
        name: typeof claims.name === 'string' ? claims.name : null,
        claims,
      };
    },
  };
}
export type OidcProvider = ReturnType<typeof createOidcProvider>;
