import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { isLoopbackHost } from './loopback.js';
import { cliRegistryClient } from './registry-client.js';

const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

describe('--plain-http', () => {
  it('is refused for a registry that is not on loopback, before anything is sent', async () => {
    const client = cliRegistryClient({ plainHttp: true, username: 'u', password: 'secret' });
    closers.push(() => client.close());
    await expect(client.resolve('registry.invalid:5000/acme/bundle:v1')).rejects.toMatchObject({
      code: 'OPKIT_ARGUMENT_INVALID',
      message: expect.stringContaining('--plain-http: registry.invalid:5000 is not a registry on loopback'),
    });
  });

  it('talks plain HTTP to a registry on loopback', async () => {
    const server = createServer((req, res) => {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ errors: [{ code: 'MANIFEST_UNKNOWN', message: req.url }] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => server.close());
    const { port } = server.address() as AddressInfo;
    const client = cliRegistryClient({ plainHttp: true, retries: 0 });
    closers.push(() => client.close());
    const failure = await client.resolve(`127.0.0.1:${port}/acme/bundle:v1`).catch((e: unknown) => e);
    // The request reached the HTTP server: a registry error, not the refusal.
    expect((failure as { code?: string }).code).not.toBe('OPKIT_ARGUMENT_INVALID');
    expect(String(failure)).toMatch(/not found|MANIFEST_UNKNOWN|404/i);
  });

  it('knows the loopback hosts', () => {
    for (const host of ['localhost:5000', '127.0.0.1:40123', '127.1.2.3', '[::1]:5000'])
      expect(isLoopbackHost(host), host).toBe(true);
    for (const host of [
      'registry:5000',
      '198.18.0.1:5000',
      'gcr.io',
      '127.example.com:5000',
      '[fe80::1]:5000',
    ])
      expect(isLoopbackHost(host), host).toBe(false);
  });
});
