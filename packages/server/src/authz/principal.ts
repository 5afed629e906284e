/** Who is calling. Resolved once per request by `http/authenticate.ts`. */
export type Principal =
  | { kind: 'user'; userId: string; email: string; sessionId: string }
  | { kind: 'apiKey'; keyId: string; projectId: string; teamId: string; name: string; expiresAt: string | null }
  | { kind: 'anonymous'; ip: string };

export function principalScope(p: Principal): string {
  switch (p.kind) {
    case 'user':
      return `user:${p.userId}`;
    case 'apiKey':
      return `apiKey:${p.keyId}`;
    case 'anonymous':
      return `ip:${p.ip}`;
  }
}
