import { isIPv4 } from 'node:net';
import { InsecureTransportError } from './errors.js';

/** localhost, *.localhost, 127.0.0.0/8 and ::1 (docs/decisions.md §11). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIPv4(host)) return host.startsWith('127.');
  return host === '::1' || host === '0:0:0:0:0:0:0:1';
}

/**
 * Throws before a key, password or cookie would cross plain http:// to a host that is not loopback;
 * with `allowInsecureHttp` it lets it through and warns once per `state` (one per client).
 */
export function assertSecureTransport(url: string, allowInsecureHttp: boolean, state: { warned: boolean }, warn: (message: string) => void): void {
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' || isLoopbackHost(parsed.hostname)) return;
  if (!allowInsecureHttp) throw new InsecureTransportError(url);
  if (state.warned) return;
  state.warned = true;
  warn(`testreport: sending credentials over plain http:// to ${parsed.host} because allowInsecureHttp is set; anyone on the network path can read them.`);
}
