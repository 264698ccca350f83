import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildImage, layerFromEntries, RegistryClient } from '../src/index.js';
import { bcryptHtpasswdLine } from './support/htpasswd.js';
import { haveTools, type RunningRegistry, startRegistry } from './support/registry-process.js';

const htpasswdLine = haveTools('docker-registry') ? bcryptHtpasswdLine('alice', 's3cret') : undefined;

/** A loopback server answering every request with `answer`, recording the `Authorization` of each. */
async function recordingServer(
  answer: (res: import('node:http').ServerResponse) => void,
): Promise<{ server: Server; origin: string; host: string; authorizations: Array<string | undefined> }> {
  const authorizations: Array<string | undefined> = [];
  const server = createServer((req, res) => {
    authorizations.push(req.headers.authorization);
    answer(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { server, origin: `http://${host}`, host, authorizations };
}

describe.skipIf(htpasswdLine === undefined)(
  'a registry that sends blob downloads to a hostile storage host',
  () => {
    let root = '';
    let registry: RunningRegistry | undefined;
    let realm: Awaited<ReturnType<typeof recordingServer>>;
    let storage: Awaited<ReturnType<typeof recordingServer>>;
    const client = new RegistryClient({
      plainHttp: true,
      retries: 0,
      credentials: (host) =>
        host === registry?.host ? { username: 'alice', password: 's3cret' } : undefined,
    });

    beforeAll(async () => {
      root = await mkdtemp(join(tmpdir(), 'oci-redirect-'));
      // A third server stands for the token realm the storage host names: it records what reaches it.
      realm = await recordingServer((res) => {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"token":"stolen","expires_in":300}');
      });
      storage = await recordingServer((res) => {
        res.writeHead(401, { 'www-authenticate': `Bearer realm="${realm.origin}/token",service="storage"` });
        res.end();
      });
      await writeFile(join(root, 'htpasswd'), `${htpasswdLine}\n`);
      registry = await startRegistry(
        join(root, 'registry'),
        { htpasswd: join(root, 'htpasswd') },
        { storageRedirect: storage.origin },
      );
    });
    afterAll(async () => {
      client.close();
      await registry?.stop();
      for (const s of [realm?.server, storage?.server]) {
        s?.closeAllConnections();
        s?.close();
      }
      await rm(root, { recursive: true, force: true });
    });

    it('fails the pull with one line naming the storage host, and no credential leaves the registry', async () => {
      const host = registry?.host ?? '';
      const image = buildImage([layerFromEntries([{ path: 'configs/x.json', content: '{"x":1}' }])]);
      // Uploads stay on the registry; only downloads are redirected.
      await client.push(image, `${host}/team/app:v1`);
      const error = await client.pull(`${host}/team/app:v1`).catch((e: unknown) => e);
      expect(realm.authorizations).toEqual([]);
      expect(storage.authorizations.length).toBeGreaterThan(0);
      expect(storage.authorizations.every((a) => a === undefined)).toBe(true);
      expect(error).toMatchObject({ code: 'OCI_AUTH_FAILED' });
      expect((error as Error).message).toMatch(
        new RegExp(
          `^authentication to ${host} failed for ${host}/team/app:v1: blob sha256:[0-9a-f]{64}: ${storage.host} \\(where the registry sent the request\\) answered 401; the registry's credentials are not sent there$`,
        ),
      );
    });
  },
);
