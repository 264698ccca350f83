import { execFile } from 'node:child_process';
import { chmod, cp, mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bundleImage,
  CATALOG_CONFIGS_LABEL,
  catalogImage,
  dockerCredentials,
  type OciImage,
  RegistryClient,
  readLayout,
  writeLayout,
} from '../src/index.js';
import { bcryptHtpasswdLine } from './support/htpasswd.js';
import { haveTools, type RunningRegistry, startRegistry } from './support/registry-process.js';
import { startTokenServer, type TokenServer } from './support/token-server.js';

const run = promisify(execFile);
const toolsPresent = haveTools('docker-registry', 'skopeo', 'umoci', 'openssl');

/**
 * Login-file credentials from a fresh home: `~/.docker/config.json` holding `config`, and on PATH a
 * `docker-credential-test` that answers `user`/`secret` for any server.
 */
async function loginFiles(root: string, config: unknown, user: string, secret: string) {
  const home = await mkdtemp(join(root, 'home-'));
  await mkdir(join(home, '.docker'));
  await writeFile(join(home, '.docker', 'config.json'), JSON.stringify(config));
  const helper = join(home, 'docker-credential-test');
  await writeFile(
    helper,
    `#!/bin/sh\ncat >/dev/null\necho '${JSON.stringify({ Username: user, Secret: secret })}'\n`,
  );
  await chmod(helper, 0o755);
  return dockerCredentials({ homeDir: home, env: { PATH: `${home}${delimiter}${process.env.PATH}` } });
}

const labels: Record<string, string> = {
  'operators.operatorframework.io.bundle.mediatype.v1': 'registry+v1',
  'operators.operatorframework.io.bundle.manifests.v1': 'manifests/',
  'operators.operatorframework.io.bundle.metadata.v1': 'metadata/',
  'operators.operatorframework.io.bundle.package.v1': 'x-operator',
  'operators.operatorframework.io.bundle.channels.v1': 'alpha',
};

const fixtureFiles: Record<string, string> = {
  'manifests/x.clusterserviceversion.yaml': [
    'apiVersion: operators.coreos.com/v1alpha1',
    'kind: ClusterServiceVersion',
    'metadata:',
    '  name: x-operator.v0.1.0',
    'spec:',
    '  version: 0.1.0',
    '',
  ].join('\n'),
  'metadata/annotations.yaml': `annotations:\n${Object.entries(labels)
    .map(([k, v]) => `  ${k}: ${v}`)
    .join('\n')}\n`,
};

async function writeFixture(dir: string, mtime: Date): Promise<void> {
  for (const [path, content] of Object.entries(fixtureFiles)) {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), content);
    await utimes(join(dir, path), mtime, mtime);
  }
}

/** Every path under `dir` (directories with a trailing `/`) mapped to its content (`''` for directories). */
async function tree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const rel = join(entry.parentPath, entry.name).slice(dir.length + 1);
    out[entry.isDirectory() ? `${rel}/` : rel] = entry.isDirectory()
      ? ''
      : await readFile(join(dir, rel), 'utf8');
  }
  return out;
}

async function skopeo(...args: string[]): Promise<string> {
  return (await run('skopeo', args, { encoding: 'utf8' })).stdout;
}

function text(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('utf8');
}

describe.skipIf(!toolsPresent)('OLM images against the Debian docker-registry', () => {
  let root = '';
  let bundleDir = '';
  let registry: RunningRegistry;
  let image: OciImage;
  const client = new RegistryClient({ plainHttp: true });

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'oci-it-'));
    bundleDir = join(root, 'bundle');
    await writeFixture(bundleDir, new Date('2020-02-02T02:02:02Z'));
    registry = await startRegistry(join(root, 'registry'));
    image = await bundleImage(bundleDir, labels);
  });
  afterAll(async () => {
    client.close();
    await registry?.stop();
    await rm(root, { recursive: true, force: true });
  });

  it('writes a bundle layout that skopeo reads, labels included', async () => {
    const layout = join(root, 'bundle-layout');
    await writeLayout(layout, [{ image, tag: 'v0.1.0' }]);
    expect(await skopeo('inspect', '--raw', `oci:${layout}:v0.1.0`)).toBe(text(image.manifestBytes));
    const inspected = JSON.parse(await skopeo('inspect', `oci:${layout}:v0.1.0`)) as Record<string, unknown>;
    expect(inspected).toMatchObject({
      Digest: image.digest,
      Labels: labels,
      Architecture: 'amd64',
      Os: 'linux',
    });
  });

  it('builds the same manifest digest from a copy of the bundle with other mtimes', async () => {
    const copy = join(root, 'bundle-copy');
    await writeFixture(copy, new Date('2031-03-03T03:03:03Z'));
    expect((await bundleImage(copy, { ...labels })).digest).toBe(image.digest);
    expect((await bundleImage(bundleDir, labels)).digest).toBe(image.digest);
  });

  it('pushes monolithically; skopeo sees manifest and labels on the registry', async () => {
    const ref = `${registry.host}/opkit/x-operator-bundle:v0.1.0`;
    const result = await client.push(image, ref, { uploadMode: 'monolithic' });
    expect(result.digest).toBe(image.digest);
    const inspected = JSON.parse(await skopeo('inspect', '--tls-verify=false', `docker://${ref}`));
    expect(inspected).toMatchObject({ Digest: image.digest, Labels: labels });
    expect(await skopeo('inspect', '--raw', '--tls-verify=false', `docker://${ref}`)).toBe(
      text(image.manifestBytes),
    );
  });

  it('pushes with small chunks (POST, PATCH…, PUT) to a fresh repository', async () => {
    const ref = `${registry.host}/opkit/chunked:v0.1.0`;
    const progress: number[] = [];
    const result = await client.push(image, ref, {
      uploadMode: 'chunked',
      chunkSize: 64,
      onProgress: (e) => {
        if (e.digest === image.layers[0]!.descriptor.digest) progress.push(e.bytes);
      },
    });
    expect(result.blobs.every((b) => b.uploaded)).toBe(true);
    expect(progress.at(-1)).toBe(image.layers[0]!.descriptor.size);
    const inspected = JSON.parse(await skopeo('inspect', '--tls-verify=false', `docker://${ref}`));
    expect(inspected).toMatchObject({ Digest: image.digest, Labels: labels });
  });

  it('pulls back into a layout that umoci unpacks to exactly the fixture files', async () => {
    const pulled = await client.pull(`${registry.host}/opkit/chunked:v0.1.0`);
    expect(pulled.digest).toBe(image.digest);
    const layout = join(root, 'pulled-layout');
    await writeLayout(layout, [{ image: pulled, tag: 'v0.1.0' }]);
    const unpacked = join(root, 'unpacked');
    await run('umoci', ['unpack', '--rootless', '--image', `${layout}:v0.1.0`, unpacked]);
    expect(await tree(join(unpacked, 'rootfs'))).toEqual({ ...(await tree(bundleDir)) });
    expect(Object.keys(await tree(join(unpacked, 'rootfs'))).sort()).toEqual([
      'manifests/',
      'manifests/x.clusterserviceversion.yaml',
      'metadata/',
      'metadata/annotations.yaml',
    ]);
  });

  it('pulls an image that skopeo pushed', async () => {
    const layout = join(root, 'bundle-layout');
    const ref = `${registry.host}/opkit/by-skopeo:v0.1.0`;
    await skopeo('copy', '--dest-tls-verify=false', `oci:${layout}:v0.1.0`, `docker://${ref}`);
    const pulled = await client.pull(ref);
    expect(pulled.config.config?.Labels).toEqual(labels);
    expect(text(pulled.layers[0]!.bytes)).toBe(text(image.layers[0]!.bytes));
    expect((await client.resolve(ref)).digest).toBe(pulled.digest);
  });

  it('builds, pushes and unpacks a catalog image with /configs and the configs label', async () => {
    const configs = join(root, 'catalog');
    await mkdir(join(configs, 'x-operator'), { recursive: true });
    const catalogYaml = 'schema: olm.package\nname: x-operator\ndefaultChannel: alpha\n';
    await writeFile(join(configs, 'x-operator', 'catalog.yaml'), catalogYaml);
    const catalog = await catalogImage(configs);
    const ref = `${registry.host}/opkit/catalog:latest`;
    await client.push(catalog, ref);
    const inspected = JSON.parse(await skopeo('inspect', '--tls-verify=false', `docker://${ref}`));
    expect(inspected.Labels).toEqual({ [CATALOG_CONFIGS_LABEL]: '/configs' });
    const layout = join(root, 'catalog-layout');
    await writeLayout(layout, [{ image: await client.pull(ref), tag: 'latest' }]);
    expect((await readLayout(layout, 'latest')).digest).toBe(catalog.digest);
    const unpacked = join(root, 'catalog-unpacked');
    await run('umoci', ['unpack', '--rootless', '--image', `${layout}:latest`, unpacked]);
    expect(await tree(join(unpacked, 'rootfs'))).toEqual({
      'configs/': '',
      'configs/x-operator/': '',
      'configs/x-operator/catalog.yaml': catalogYaml,
    });
  });
});

const htpasswdLine = toolsPresent ? bcryptHtpasswdLine('alice', 's3cret') : undefined;

describe.skipIf(htpasswdLine === undefined)('htpasswd (basic auth) registry', () => {
  let root = '';
  let registry: RunningRegistry;
  let image: OciImage;
  const clients: RegistryClient[] = [];
  const newClient = (password?: string): RegistryClient => {
    const c = new RegistryClient({
      plainHttp: true,
      retries: 0,
      ...(password === undefined ? {} : { credentials: () => ({ username: 'alice', password }) }),
    });
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'oci-it-basic-'));
    await writeFile(join(root, 'htpasswd'), `${htpasswdLine}\n`);
    registry = await startRegistry(join(root, 'registry'), { htpasswd: join(root, 'htpasswd') });
    await writeFixture(join(root, 'bundle'), new Date());
    image = await bundleImage(join(root, 'bundle'), labels);
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await registry?.stop();
    await rm(root, { recursive: true, force: true });
  });

  it('pushes and pulls with credentials; skopeo reads it with the same credentials', async () => {
    const ref = `${registry.host}/private/bundle:v1`;
    await newClient('s3cret').push(image, ref, { uploadMode: 'chunked', chunkSize: 128 });
    expect((await newClient('s3cret').pull(ref)).digest).toBe(image.digest);
    const inspected = JSON.parse(
      await skopeo('inspect', '--tls-verify=false', '--creds', 'alice:s3cret', `docker://${ref}`),
    );
    expect(inspected.Labels).toEqual(labels);
  });

  it('pulls with the credentials of docker’s login file and of a credential helper', async () => {
    const ref = `${registry.host}/private/bundle:login`;
    await newClient('s3cret').push(image, ref);
    const auth = Buffer.from('alice:s3cret').toString('base64');
    for (const config of [{ auths: { [registry.host]: { auth } } }, { credsStore: 'test' }]) {
      const client = new RegistryClient({
        plainHttp: true,
        retries: 0,
        credentials: await loginFiles(root, config, 'alice', 's3cret'),
      });
      clients.push(client);
      expect((await client.pull(ref)).digest, JSON.stringify(config)).toBe(image.digest);
    }
  });

  it('fails with OCI_AUTH_FAILED without or with wrong credentials', async () => {
    const ref = `${registry.host}/private/bundle:v2`;
    await expect(newClient().push(image, ref)).rejects.toMatchObject({
      code: 'OCI_AUTH_FAILED',
      message: expect.stringContaining('none are configured'),
    });
    await expect(newClient('wrong').push(image, ref)).rejects.toMatchObject({
      code: 'OCI_AUTH_FAILED',
      message: expect.stringMatching(
        new RegExp(`^authentication to ${registry.host} failed for ${ref}: .*401`),
      ),
    });
  });
});

describe.skipIf(!toolsPresent)('token (bearer) auth registry', () => {
  let root = '';
  let tokens: TokenServer;
  let registry: RunningRegistry;
  let image: OciImage;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'oci-it-token-'));
    tokens = await startTokenServer(root, 'alice', 'pw');
    registry = await startRegistry(join(root, 'registry'), { token: tokens });
    await writeFixture(join(root, 'bundle'), new Date());
    image = await bundleImage(join(root, 'bundle'), labels);
    // A catalog built from the same directory layout exercises a second repository scope.
    await cp(join(root, 'bundle'), join(root, 'configs'), { recursive: true });
  });
  afterAll(async () => {
    await registry?.stop();
    await tokens?.stop();
    await rm(root, { recursive: true, force: true });
  });

  it('gets a token from the realm with basic credentials, then pushes and pulls', async () => {
    const client = new RegistryClient({
      plainHttp: true,
      credentials: { [registry.host]: { username: 'alice', password: 'pw' } },
    });
    try {
      await client.push(image, `${registry.host}/team/bundle:v1`, { uploadMode: 'chunked', chunkSize: 100 });
      await client.push(await catalogImage(join(root, 'configs')), `${registry.host}/team/catalog:v1`);
      expect((await client.pull(`${registry.host}/team/bundle:v1`)).digest).toBe(image.digest);
      expect(tokens.requests.map((r) => [r.user, r.scopes.join(' ')])).toEqual([
        ['alice', 'repository:team/bundle:pull,push'],
        ['alice', 'repository:team/catalog:pull,push'],
        ['alice', 'repository:team/bundle:pull'],
      ]);
    } finally {
      client.close();
    }
  });

  it('gets its token with the credentials of docker’s login file and of credHelpers', async () => {
    const pusher = new RegistryClient({
      plainHttp: true,
      credentials: () => ({ username: 'alice', password: 'pw' }),
    });
    await pusher.push(image, `${registry.host}/team/bundle:login`);
    pusher.close();
    const auth = Buffer.from('alice:pw').toString('base64');
    for (const config of [
      { auths: { [`https://${registry.host}/v1/`]: { auth } } },
      { credHelpers: { [registry.host]: 'test' } },
    ]) {
      const client = new RegistryClient({
        plainHttp: true,
        credentials: await loginFiles(root, config, 'alice', 'pw'),
      });
      try {
        tokens.requests.length = 0;
        expect((await client.pull(`${registry.host}/team/bundle:login`)).digest).toBe(image.digest);
        expect(tokens.requests.map((r) => r.user)).toEqual(['alice']);
      } finally {
        client.close();
      }
    }
  });

  it('reports OCI_AUTH_FAILED when the token service rejects the password', async () => {
    const client = new RegistryClient({
      plainHttp: true,
      credentials: () => ({ username: 'alice', password: 'bad' }),
    });
    try {
      await expect(client.pull(`${registry.host}/team/bundle:v1`)).rejects.toMatchObject({
        code: 'OCI_AUTH_FAILED',
        message: `authentication to ${registry.host} failed for ${registry.host}/team/bundle:v1: token service ${tokens.realm} rejected the credentials of alice (401)`,
      });
    } finally {
      client.close();
    }
  });
});
