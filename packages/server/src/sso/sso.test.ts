import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../config.js';
import { parseTeamClaim } from './teamClaim.js';

const dataDir = mkdtempSync(join(tmpdir(), 'testreport-sso-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
const env = (vars: Record<string, string>) => ({ TESTREPORT_SECRET: 's', ...vars });

describe('single sign-on settings', () => {
  it('are read from TESTREPORT_OIDC_* with their defaults', () => {
    const c = resolveConfig({ dataDir }, env({
      TESTREPORT_OIDC_ISSUER: 'https://id.example.com/realms/acme', TESTREPORT_OIDC_CLIENT_ID: 'testreport', TESTREPORT_OIDC_CLIENT_SECRET: 'x',
      TESTREPORT_OIDC_ALLOWED_DOMAINS: 'Acme.com, acme.de', TESTREPORT_PASSWORD_LOGIN: 'off',
    }));
    expect(c.oidc).toEqual({
      issuer: 'https://id.example.com/realms/acme', clientId: 'testreport', clientSecret: 'x', name: 'SSO',
      allowedDomains: ['acme.com', 'acme.de'], teamClaim: null, manageTeams: false, allowInsecure: false,
    });
    expect(c.passwordLogin).toBe(false);
  });

  it('are off without an issuer, and passwords stay on', () => {
    const c = resolveConfig({ dataDir }, env({}));
    expect(c.oidc).toBeNull();
    expect(c.passwordLogin).toBe(true);
  });

  it('need a client id and secret', () => {
    expect(() => resolveConfig({ dataDir }, env({ TESTREPORT_OIDC_ISSUER: 'https://id.example.com' }))).toThrow(/--oidc-client-id and --oidc-client-secret/);
  });

  it('refuse a plain-http issuer unless it is loopback or explicitly allowed', () => {
    const base = { TESTREPORT_OIDC_CLIENT_ID: 'a', TESTREPORT_OIDC_CLIENT_SECRET: 'b' };
    expect(() => resolveConfig({ dataDir }, env({ ...base, TESTREPORT_OIDC_ISSUER: 'http://id.example.com' }))).toThrow(/must be https/);
    expect(resolveConfig({ dataDir }, env({ ...base, TESTREPORT_OIDC_ISSUER: 'http://127.0.0.1:8080/realms/x' })).oidc?.allowInsecure).toBe(true);
    expect(resolveConfig({ dataDir }, env({ ...base, TESTREPORT_OIDC_ISSUER: 'http://localhost:8080' })).oidc?.allowInsecure).toBe(true);
    const allowed = env({ ...base, TESTREPORT_OIDC_ISSUER: 'http://keycloak.internal', TESTREPORT_OIDC_ALLOW_INSECURE: 'true' });
    expect(resolveConfig({ dataDir }, allowed).oidc?.allowInsecure).toBe(true);
  });
});

describe('the team claim', () => {
  it('maps team:role values, keeps the strongest role per team and ignores the rest', () => {
    expect(parseTeamClaim(['acme:admin', '/QA team:Viewer', 'acme:member', 'everyone', 'x:superuser', ':admin', 42])).toEqual({
      memberships: [{ team: 'acme', role: 'admin' }, { team: 'QA team', role: 'viewer' }],
      ignored: ['everyone', 'x:superuser', ':admin'],
    });
  });

  it('takes a single string, and nothing from an absent claim', () => {
    expect(parseTeamClaim('ops:owner').memberships).toEqual([{ team: 'ops', role: 'owner' }]);
    expect(parseTeamClaim(undefined)).toEqual({ memberships: [], ignored: [] });
  });

  it('splits at the last colon, so team names may hold one', () => {
    expect(parseTeamClaim(['web:frontend:member']).memberships).toEqual([{ team: 'web:frontend', role: 'member' }]);
  });
});
