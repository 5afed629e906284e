import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';

/**
 * The SSRF guard of webhook delivery (spec part 6, docs/decisions.md §8): a webhook may only reach public
 * addresses over https. Checked when a webhook is saved and again for every connection, on the very
 * address the socket connects to, so a DNS answer that changes between check and use (rebinding)
 * cannot point a delivery at an internal service.
 */

type Cidr = readonly [bytes: number[], prefixBits: number];

const v4 = (s: string): number[] => s.split('.').map(Number);
const cidr4 = (s: string): Cidr => {
  const [a, bits] = s.split('/');
  return [v4(a), Number(bits)];
};

/** IPv4 ranges that are not publicly routable (IANA special-purpose registry, plus multicast and reserved). */
const BLOCKED_V4: Cidr[] = [
  '0.0.0.0/8', // "this network", includes the unspecified address
  '10.0.0.0/8', // private
  '100.64.0.0/10', // carrier-grade NAT
  '127.0.0.0/8', // loopback
  '169.254.0.0/16', // link-local, includes cloud metadata 169.254.169.254
  '172.16.0.0/12', // private
  '192.0.0.0/24', // IETF protocol assignments
  '192.0.2.0/24', // TEST-NET-1
  '192.88.99.0/24', // 6to4 relay anycast
  '192.168.0.0/16', // private
  '198.18.0.0/15', // benchmarking
  '198.51.100.0/24', // TEST-NET-2
  '203.0.113.0/24', // TEST-NET-3
  '224.0.0.0/4', // multicast
  '240.0.0.0/4', // reserved, includes broadcast 255.255.255.255
].map(cidr4);

function inCidr(bytes: number[], [net, bits]: Cidr): boolean {
  for (let i = 0; i < net.length && bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((bytes[i] & mask) !== (net[i] & mask)) return false;
  }
  return true;
}

/** Sixteen bytes of an IPv6 address (accepts `::`, an IPv4 tail, and brackets). */
export function ipv6Bytes(text: string): number[] | null {
  let s = text.replace(/^\[|\]$/g, '');
  if (isIP(s) !== 6) return null;
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (tail) {
    const [a, b, c, d] = v4(tail[1]);
    s = s.slice(0, -tail[1].length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [left, right] = s.includes('::') ? s.split('::') : [s, undefined];
  const l = left ? left.split(':') : [];
  const r = right ? right.split(':') : [];
  const groups = right === undefined ? l : [...l, ...Array(8 - l.length - r.length).fill('0'), ...r];
  if (groups.length !== 8) return null;
  return groups.flatMap((g) => {
    const n = parseInt(g, 16);
    return [n >> 8, n & 0xff];
  });
}

const hex6 = (s: string): Cidr => {
  const [a, bits] = s.split('/');
  return [ipv6Bytes(a)!, Number(bits)];
};
/** IPv6 space outside global unicast 2000::/3 is refused wholesale; these are the refused parts inside it. */
const BLOCKED_V6_GLOBAL: Cidr[] = [
  '2001::/23', // IETF protocol assignments (Teredo 2001::/32, ORCHID, benchmarking 2001:2::/48)
  '2001:db8::/32', // documentation
  '3fff::/20', // documentation
].map(hex6);
const NAT64_WELL_KNOWN = hex6('64:ff9b::/96');
const SIX_TO_FOUR = hex6('2002::/16');

function publicV4(bytes: number[]): boolean {
  return !BLOCKED_V4.some((c) => inCidr(bytes, c));
}

function publicV6(bytes: number[]): boolean {
  if (bytes.slice(0, 10).every((b) => b === 0)) {
    // IPv4-mapped ::ffff:a.b.c.d reaches the embedded IPv4 address: judge that one. The rest of ::/80
    // (unspecified ::, loopback ::1, the deprecated IPv4-compatible ::a.b.c.d) is never a receiver.
    return bytes[10] === 0xff && bytes[11] === 0xff && publicV4(bytes.slice(12));
  }
  // NAT64 and 6to4 translate to an IPv4 address carried inside; judge that one.
  if (inCidr(bytes, NAT64_WELL_KNOWN)) return publicV4(bytes.slice(12));
  if (inCidr(bytes, SIX_TO_FOUR)) return publicV4(bytes.slice(2, 6));
  // Global unicast is 2000::/3; everything else (ULA fc00::/7, link-local fe80::/10, multicast ff00::/8,
  // site-local, discard 100::/64, local-use NAT64 64:ff9b:1::/48, …) is not public.
  if ((bytes[0] & 0xe0) !== 0x20) return false;
  return !BLOCKED_V6_GLOBAL.some((c) => inCidr(bytes, c));
}

/** True only for an address a public webhook receiver can have. */
export function isPublicAddress(address: string): boolean {
  const plain = address.replace(/^\[|\]$/g, '');
  const family = isIP(plain);
  if (family === 4) return publicV4(v4(plain));
  if (family === 6) {
    const bytes = ipv6Bytes(plain);
    return bytes !== null && publicV6(bytes);
  }
  return false;
}

export class UnsafeWebhookTarget extends Error {}

const LOCAL_NAMES = /(^|\.)(localhost|localdomain|local|internal|home\.arpa)\.?$/i;

/**
 * The checks that need no DNS: scheme, credentials, and literal or well-known local host names.
 * WHATWG URL parsing has already turned `0x7f.1`, `2130706433` and `0177.0.0.1` into `127.0.0.1`.
 */
export function checkWebhookUrlShape(raw: string, allowPrivate: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeWebhookTarget('The webhook URL is not a valid absolute URL');
  }
  const schemes = allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) throw new UnsafeWebhookTarget('Webhook URLs must use https://');
  if (url.username || url.password) throw new UnsafeWebhookTarget('Webhook URLs cannot carry credentials; put them in the webhook headers');
  if (allowPrivate) return url;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) {
    if (!isPublicAddress(host)) throw new UnsafeWebhookTarget(`Webhook URLs must point to a public address; ${host} is internal, private or reserved`);
  } else if (LOCAL_NAMES.test(host) || !host.includes('.')) {
    throw new UnsafeWebhookTarget(`Webhook URLs must point to a public host; ${host} is a local name`);
  }
  return url;
}

type LookupAll = (hostname: string, options: { all: true }, cb: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

/** Resolves every address of a host and refuses the host if any of them is not public. */
export function resolvePublic(hostname: string, resolver: LookupAll = dnsLookup as LookupAll): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => {
    resolver(hostname, { all: true }, (err, addresses) => {
      if (err) return reject(err);
      const bad = addresses.find((a) => !isPublicAddress(a.address));
      if (bad) return reject(new UnsafeWebhookTarget(`${hostname} resolves to ${bad.address}, which is not a public address`));
      if (addresses.length === 0) return reject(new UnsafeWebhookTarget(`${hostname} has no address`));
      resolve(addresses);
    });
  });
}

/**
 * A `lookup` for net/tls connect: the socket connects only to addresses this function has just
 * validated, so the checked address is the used one. Host header and TLS SNI keep the host name.
 */
export function guardedLookup(allowPrivate: boolean) {
  return (hostname: string, options: { all?: boolean; family?: number } | number, cb: (...args: any[]) => void) => {
    const opts = typeof options === 'number' ? { family: options } : options ?? {};
    const done = (err: Error | null, addresses: LookupAddress[]) => {
      if (err) return cb(err);
      if (opts.all) return cb(null, addresses);
      cb(null, addresses[0].address, addresses[0].family);
    };
    if (allowPrivate) {
      dnsLookup(hostname, { all: true, family: opts.family ?? 0 }, (err, addrs) => done(err, addrs));
      return;
    }
    resolvePublic(hostname).then(
      (addrs) => done(null, addrs),
      (err: Error) => done(err, []),
    );
  };
}
