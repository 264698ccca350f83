import { createPrivateKey, X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import { connect, createServer } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { certificateAuthority, issueServingCertificate, selfSignedCertificate } from './certificates.js';

describe('selfSignedCertificate', () => {
  it('always encodes as OpenSSL reads it, whatever the random serial number (one in 256 began with a zero byte)', () => {
    for (let i = 0; i < 1000; i++) {
      const { cert, key } = selfSignedCertificate({ commonName: `c${i}`, hosts: ['127.0.0.1'] });
      const x509 = new X509Certificate(cert);
      expect(x509.checkPrivateKey(createPrivateKey(key))).toBe(true);
      expect(x509.serialNumber).not.toMatch(/^00[0-7]/);
    }
  });

  const now = new Date('2026-11-23T12:00:00Z');
  const { cert, key } = selfSignedCertificate({
    commonName: 'demo-metrics',
    hosts: ['localhost', 'demo.system.svc', '127.0.0.1', '::1', 'fd00::a:1'],
    now,
  });
  const x509 = new X509Certificate(cert);

  it('is a self-signed serving certificate for the given names and addresses', () => {
    expect(x509.subject).toBe('CN=demo-metrics');
    expect(x509.issuer).toBe('CN=demo-metrics');
    expect(x509.verify(x509.publicKey)).toBe(true);
    expect(x509.ca).toBe(true);
    expect(x509.subjectAltName).toBe(
      'DNS:localhost, DNS:demo.system.svc, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, IP Address:FD00:0:0:0:0:0:A:1',
    );
    expect(new Date(x509.validFrom).getTime()).toBe(now.getTime() - 60_000);
    expect(new Date(x509.validTo).getTime()).toBe(now.getTime() + 365 * 86_400_000);
    expect(x509.checkPrivateKey(createPrivateKey(key))).toBe(true);
  });

  it('is accepted by a TLS client that pins it, for a name and for an address', async () => {
    const live = selfSignedCertificate({ commonName: 'live', hosts: ['localhost', '127.0.0.1'] });
    const server = createServer({ ...live, minVersion: 'TLSv1.2' }, (socket) => socket.end('hello'));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as { port: number };
    try {
      for (const servername of ['localhost', undefined]) {
        const socket = connect({
          host: '127.0.0.1',
          port,
          ca: live.cert,
          ...(servername ? { servername } : {}),
        });
        const [data] = (await once(socket, 'data')) as [Buffer];
        expect(socket.authorized).toBe(true);
        expect(data.toString()).toBe('hello');
        socket.destroy();
      }
    } finally {
      server.close();
    }
  });
});

describe('certificateAuthority and issueServingCertificate', () => {
  const authority = certificateAuthority({ commonName: 'demo-webhook-ca' });
  const serving = issueServingCertificate({
    commonName: 'webhook-service.system.svc',
    hosts: ['webhook-service.system.svc', 'localhost', '127.0.0.1'],
    validityDays: 30,
    authority,
  });

  it('issues serving certificates the authority signed, which clients trusting only the authority accept', async () => {
    const ca = new X509Certificate(authority.cert);
    const leaf = new X509Certificate(serving.cert);
    expect(ca.ca).toBe(true);
    expect(leaf.ca).toBe(false);
    expect(leaf.issuer).toBe('CN=demo-webhook-ca');
    expect(leaf.checkIssued(ca)).toBe(true);
    expect(leaf.verify(ca.publicKey)).toBe(true);
    const server = createServer({ ...serving, minVersion: 'TLSv1.2' }, (socket) => socket.end('hello'));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as { port: number };
    try {
      const socket = connect({ host: '127.0.0.1', port, ca: authority.cert, servername: 'localhost' });
      const [data] = (await once(socket, 'data')) as [Buffer];
      expect(socket.authorized).toBe(true);
      expect(data.toString()).toBe('hello');
      socket.destroy();
    } finally {
      server.close();
    }
  });
});
