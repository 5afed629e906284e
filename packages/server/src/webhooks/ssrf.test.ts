import { describe, expect, it } from 'vitest';
import { checkWebhookUrlShape, isPublicAddress, resolvePublic, UnsafeWebhookTarget } from './ssrf.js';

describe('SSRF guard: addresses', () => {
  it.each([
    '127.0.0.1', '127.255.255.254', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1',
    '100.127.255.255', '0.0.0.0', '255.255.255.255', '224.0.0.1', '239.255.255.250', '240.0.0.1', '198.18.0.1', '192.0.2.10',
    '198.51.100.7', '203.0.113.9', '192.0.0.8', '::', '::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:169.254.169.254',
    '::127.0.0.1', '::8.8.8.8', 'fc00::1', 'fd12:3456::1', 'fe80::1', 'ff02::1', 'fec0::1', '64:ff9b::7f00:1', '64:ff9b::10.0.0.1',
    '64:ff9b:1::1', '2002:7f00:1::', '2002:a9fe:a9fe::1', '2001:db8::1', '2001:0:4136:e378::1', '100::1',
  ])('refuses %s', (ip) => {
    expect(isPublicAddress(ip)).toBe(false);
  });

  it.each(['93.184.216.34', '8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:93.184.216.34', '64:ff9b::808:808', '2002:5db8:d822::1'])('accepts %s', (ip) => {
    expect(isPublicAddress(ip)).toBe(true);
  });
});

describe('SSRF guard: URLs', () => {
  const refused = [
    'http://93.184.216.34/hook', // plain http
    'ftp://93.184.216.34/', 'file:///etc/passwd', 'javascript:alert(1)',
    'https://127.0.0.1/', 'https://localhost/', 'https://LOCALHOST./', 'https://api.localhost/', 'https://printer.local/',
    'https://metadata.google.internal/', 'https://intranet/',
    'https://169.254.169.254/latest/meta-data/', 'https://[::1]/', 'https://[::ffff:127.0.0.1]/', 'https://[::ffff:7f00:1]/',
    'https://[0:0:0:0:0:ffff:a9fe:a9fe]/', 'https://[fd00::1]/', 'https://[fe80::1]/', 'https://[64:ff9b::a00:1]/', 'https://[2002:c0a8:101::1]/',
    'https://0x7f.1/', 'https://0x7f000001/', 'https://2130706433/', 'https://017700000001/', 'https://0177.0.0.1/', 'https://127.1/',
    'https://0/', 'https://0.0.0.0/', 'https://10.0.0.1:8443/x', 'https://192.168.0.1./', 'https://100.100.100.200/', 'https://0xa9.0xfe.0xa9.0xfe/',
    'https://[::]/', 'https://255.255.255.255/', 'https://224.0.0.251/', 'https://user:pass@93.184.216.34/', 'not a url',
  ];
  it.each(refused)('refuses %s', (url) => {
    expect(() => checkWebhookUrlShape(url, false)).toThrow(UnsafeWebhookTarget);
  });

  it('has a table of well over 20 refused forms', () => {
    expect(refused.length).toBeGreaterThanOrEqual(20);
  });

  it('accepts public https URLs', () => {
    expect(checkWebhookUrlShape('https://93.184.216.34/hook', false).hostname).toBe('93.184.216.34');
    expect(checkWebhookUrlShape('https://hooks.example.com/x?y=1', false).hostname).toBe('hooks.example.com');
    expect(checkWebhookUrlShape('https://[2606:4700:4700::1111]/', false).hostname).toBe('[2606:4700:4700::1111]');
  });

  it('lets loopback and http through only when private targets are allowed', () => {
    expect(checkWebhookUrlShape('http://127.0.0.1:8080/hook', true).port).toBe('8080');
    expect(() => checkWebhookUrlShape('ftp://127.0.0.1/', true)).toThrow(UnsafeWebhookTarget);
  });

  it('refuses a name when any of its addresses is internal (checked on the resolved answer)', async () => {
    const fake = (answer: string[]) => (_h: string, _o: unknown, cb: (e: null, a: { address: string; family: number }[]) => void) =>
      cb(null, answer.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
    await expect(resolvePublic('rebind.example', fake(['93.184.216.34', '127.0.0.1']))).rejects.toThrow(/127\.0\.0\.1/);
    await expect(resolvePublic('rebind.example', fake(['::ffff:10.0.0.1']))).rejects.toThrow(UnsafeWebhookTarget);
    await expect(resolvePublic('ok.example', fake(['93.184.216.34', '2606:4700:4700::1111']))).resolves.toHaveLength(2);
  });
});

describe('SSRF guard at connect time', () => {
  it('the guarded lookup refuses a name that resolves to loopback, so no socket reaches it', async () => {
    const { createServer, connect } = await import('node:net');
    let connections = 0;
    const server = createServer((s) => {
      connections++;
      s.destroy();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    try {
      const { guardedLookup } = await import('./ssrf.js');
      const attempt = (allowPrivate: boolean) =>
        new Promise<string>((resolve) => {
          const socket = connect({ host: 'localhost', port, family: 4, lookup: guardedLookup(allowPrivate) as never });
          socket.on('connect', () => {
            socket.destroy();
            resolve('connected');
          });
          socket.on('error', (err) => resolve(err.message));
        });
      expect(await attempt(false)).toMatch(/not a public address/);
      expect(connections).toBe(0);
      // The same connection is made when private targets are allowed: the refusal above was the guard's.
      expect(await attempt(true)).toBe('connected');
    } finally {
      server.close();
    }
  });
});
