import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { buildImage } from './image.js';
import { layerFromEntries } from './layer.js';
import { RegistryClient, type RegistryClientOptions } from './registry-client.js';
import { type FakeAuth, FakeRegistry } from './testing/fake-registry.js';

const image = buildImage([layerFromEntries([{ path: 'configs/x.json', content: '{}' }])]);
const alice = { username: 'alice', password: 's3cret' };

/** A loopback server answering every request with `answer`, recording the `Authorization` of each. */
async function recordingServer(
  answer: (res: import('node:http').ServerResponse) => void,
): Promise<{ origin: string; host: string; authorizations: Array<string | undefined> }> {
  const authorizations: Array<string | undefined> = [];
  const server = createServer((req, res) => {
    authorizations.push(req.headers.authorization);
    answer(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin: `http://${host}`, host, authorizations };
}

const servers: Server[] = [];
const fakes: FakeRegistry[] = [];
const clients: RegistryClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    s.close();
  }
  await Promise.all(fakes.splice(0).map((f) => f.stop()));
});

function client(registry: FakeRegistry, options: RegistryClientOptions = {}): RegistryClient {
  const c = new RegistryClient({
    plainHttp: true,
    retries: 0,
    credentials: { [registry.host]: alice },
    ...options,
  });
  clients.push(c);
  return c;
}

/**
 * A registry holding `image` that sends blob downloads to a hostile storage host; the storage answers 401
 * naming a token realm on a third server that records whatever credentials reach it.
 */
async function hostileSetup(auth: FakeAuth) {
  const realm = await recordingServer((res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"token":"stolen","expires_in":300}');
  });
  const storage = await recordingServer((res) => {
    res.writeHead(401, { 'www-authenticate': `Bearer realm="${realm.origin}/token",service="storage"` });
    res.end();
  });
  const registry = await FakeRegistry.start({ auth });
  fakes.push(registry);
  await client(registry).push(image, `${registry.host}/team/app:v1`);
  registry.blobRedirect = storage.origin;
  return { registry, storage, realm };
}

describe('credentials go only where they belong', () => {
  it.each<[string, FakeAuth]>([
    ['basic', { kind: 'basic', ...alice }],
    ['bearer', { kind: 'bearer', ...alice }],
  ])(
    'a redirected download answered 401 is an error, and no credential reaches its realm (%s)',
    async (_, auth) => {
      const { registry, storage, realm } = await hostileSetup(auth);
      const c = client(registry);
      const layer = image.layers[0]!.descriptor.digest;
      // Twice: a realm taken from the first answer would be used by the second pull.
      const errors = [];
      for (let attempt = 0; attempt < 2; attempt++) {
        errors.push(await c.pull(`${registry.host}/team/app:v1`).catch((e: unknown) => e));
      }
      expect(realm.authorizations).toEqual([]);
      expect(storage.authorizations.every((a) => a === undefined)).toBe(true);
      for (const error of errors) {
        expect(error).toMatchObject({ code: 'OCI_AUTH_FAILED' });
        const message = (error as Error).message;
        expect(message).toMatch(
          new RegExp(
            `^authentication to ${registry.host} failed for ${registry.host}/team/app:v1: blob sha256:[0-9a-f]{64}: ${storage.host} \\(where the registry sent the request\\) answered 401; the registry's credentials are not sent there$`,
          ),
        );
        expect(message).not.toContain('\n');
      }
      // The registry's own challenge still rules: its requests carry its credentials, never the realm's token.
      const last = registry.requests.filter((r) => r.path.includes('/blobs/')).at(-1);
      expect(last?.authorization).toMatch(auth.kind === 'basic' ? /^Basic / : /^Bearer tok-/);
      expect(
        registry.requests.some((r) => r.path.endsWith(layer) && r.authorization === 'Bearer stolen'),
      ).toBe(false);
    },
  );

  it('sends no credential to an upload location on another host, and names it when it answers 401', async () => {
    const { registry, storage, realm } = await hostileSetup({ kind: 'basic', ...alice });
    registry.uploadOrigin = storage.origin;
    const other = buildImage([layerFromEntries([{ path: 'configs/y.json', content: '{"y":1}' }])]);
    await expect(client(registry).push(other, `${registry.host}/team/app:v2`)).rejects.toThrow(
      new RegExp(
        `: ${storage.host} \\(where the registry sent the request\\) answered 401; the registry's credentials are not sent there$`,
      ),
    );
    expect(storage.authorizations).toEqual([undefined]);
    expect(realm.authorizations).toEqual([]);
  });

  it('names the storage host that refuses a download with 403', async () => {
    const storage = await recordingServer((res) => res.writeHead(403).end());
    const registry = await FakeRegistry.start({ auth: { kind: 'basic', ...alice } });
    fakes.push(registry);
    await client(registry).push(image, `${registry.host}/team/app:v1`);
    registry.blobRedirect = storage.origin;
    await expect(client(registry).pull(`${registry.host}/team/app:v1`)).rejects.toThrow(
      new RegExp(`denied \\(403\\) from ${storage.host} \\(where the registry sent the request\\)$`),
    );
    expect(storage.authorizations.every((a) => a === undefined)).toBe(true);
  });
});
