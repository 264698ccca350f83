import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { DOCKER_HUB_AUTH_KEY, dockerCredentials, loginFilePaths } from './docker-config.js';
import { buildImage } from './image.js';
import { layerFromEntries } from './layer.js';
import { RegistryClient } from './registry-client.js';
import { type FakeAuth, FakeRegistry } from './testing/fake-registry.js';

const image = buildImage([layerFromEntries([{ path: 'hello.txt', content: 'hello' }])]);
const scratch = mkdtempSync(join(tmpdir(), 'oci-login-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const started: FakeRegistry[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((r) => r.stop()));
});

/** A registry holding `image` as team/app:v1, pushed with the given credentials. */
async function registryWith(auth: FakeAuth, push: { username: string; password: string }) {
  const registry = await FakeRegistry.start({ auth });
  started.push(registry);
  const pusher = new RegistryClient({ plainHttp: true, credentials: () => push });
  await pusher.push(image, `${registry.host}/team/app:v1`);
  pusher.close();
  registry.tokenRequests.length = 0;
  return registry;
}

let homes = 0;
/** A home directory whose only login file is `files[path]`, relative to it. */
function home(files: Record<string, unknown>): string {
  const dir = join(scratch, `home-${++homes}`);
  for (const [path, doc] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), typeof doc === 'string' ? doc : JSON.stringify(doc));
  }
  return dir;
}

/** Pulls team/app:v1 with the credentials the login files of `homeDir` (and `env`) give. */
async function pullWith(registry: FakeRegistry, homeDir: string, env: Record<string, string> = {}) {
  const client = new RegistryClient({
    plainHttp: true,
    credentials: dockerCredentials({ homeDir, env: { PATH: process.env.PATH, ...env } }),
  });
  try {
    return (await client.pull(`${registry.host}/team/app:v1`)).digest;
  } finally {
    client.close();
  }
}

const basic = (user: string, password: string) => Buffer.from(`${user}:${password}`).toString('base64');

/** A `docker-credential-<name>` script on a PATH of its own that logs its stdin and answers `answer`. */
function helper(name: string, script: string): { path: string; log: string } {
  const bin = join(scratch, `bin-${name}`);
  mkdirSync(bin, { recursive: true });
  const log = join(bin, 'stdin.log');
  writeFileSync(
    join(bin, `docker-credential-${name}`),
    `#!/bin/sh\n[ "$1" = get ] || exit 2\ncat > ${JSON.stringify(log)}\n${script}\n`,
  );
  chmodSync(join(bin, `docker-credential-${name}`), 0o755);
  return { path: `${bin}${delimiter}${process.env.PATH}`, log };
}

describe('registry credentials from docker and podman login files', () => {
  it('sends base64 user:password of ~/.docker/config.json auths to a basic-auth registry', async () => {
    const registry = await registryWith(
      { kind: 'basic', username: 'alice', password: 'pw' },
      { username: 'alice', password: 'pw' },
    );
    const dir = home({
      '.docker/config.json': { auths: { [`https://${registry.host}`]: { auth: basic('alice', 'pw') } } },
    });
    expect(await pullWith(registry, dir)).toBe(image.digest);
    // Wrong credentials are refused by the registry, not taken for anonymous access.
    const wrong = home({
      '.docker/config.json': { auths: { [registry.host]: { auth: basic('alice', 'no') } } },
    });
    await expect(pullWith(registry, wrong)).rejects.toMatchObject({ code: 'OCI_AUTH_FAILED' });
  });

  it('prefers $REGISTRY_AUTH_FILE, then containers auth.json, over docker’s config, as podman does', async () => {
    const registry = await registryWith(
      { kind: 'bearer', username: 'bob', password: 'right' },
      { username: 'bob', password: 'right' },
    );
    const stale = { auths: { [registry.host]: { auth: basic('bob', 'stale') } } };
    const fresh = { auths: { [registry.host]: { auth: basic('bob', 'right') } } };
    const dir = home({ '.docker/config.json': stale, 'run/containers/auth.json': fresh, 'auth.json': fresh });
    await expect(pullWith(registry, dir)).rejects.toMatchObject({ code: 'OCI_AUTH_FAILED' });
    expect(await pullWith(registry, dir, { XDG_RUNTIME_DIR: join(dir, 'run') })).toBe(image.digest);
    expect(await pullWith(registry, dir, { REGISTRY_AUTH_FILE: join(dir, 'auth.json') })).toBe(image.digest);
    const dockerConfig = home({ 'elsewhere/config.json': fresh });
    expect(await pullWith(registry, dir, { DOCKER_CONFIG: join(dockerConfig, 'elsewhere') })).toBe(
      image.digest,
    );
    expect(registry.tokenRequests.at(-1)?.authorization).toBe(`Basic ${basic('bob', 'right')}`);
    expect(loginFilePaths({ homeDir: '/h', env: { XDG_RUNTIME_DIR: '/run/user/1' } })).toEqual([
      '/run/user/1/containers/auth.json',
      '/h/.config/containers/auth.json',
      '/h/.docker/config.json',
      '/h/.dockercfg',
    ]);
  });

  it('takes the longest podman namespace key that holds the repository, then the registry’s own', async () => {
    const registry = await registryWith(
      { kind: 'basic', username: 'team', password: 'team-pw' },
      { username: 'team', password: 'team-pw' },
    );
    const dir = home({
      'auth.json': {
        auths: {
          [registry.host]: { auth: basic('team', 'registry-wide') },
          [`${registry.host}/team`]: { auth: basic('team', 'team-pw') },
          [`${registry.host}/other`]: { auth: basic('team', 'other') },
        },
      },
    });
    expect(await pullWith(registry, dir, { REGISTRY_AUTH_FILE: join(dir, 'auth.json') })).toBe(image.digest);
    const lookup = dockerCredentials({ homeDir: dir, env: { REGISTRY_AUTH_FILE: join(dir, 'auth.json') } });
    expect(await lookup(registry.host, 'team/app')).toEqual({ username: 'team', password: 'team-pw' });
    expect(await lookup(registry.host, 'teamster/app')).toEqual({
      username: 'team',
      password: 'registry-wide',
    });
  });

  it('exchanges an identitytoken for an access token (OAuth2 refresh_token grant)', async () => {
    const registry = await registryWith(
      { kind: 'bearer', username: 'ci', password: 'pw', refreshToken: 'refresh-123' },
      { username: 'ci', password: 'pw' },
    );
    const dir = home({
      '.docker/config.json': {
        auths: { [registry.host]: { auth: basic('ci', ''), identitytoken: 'refresh-123' } },
      },
    });
    expect(await pullWith(registry, dir)).toBe(image.digest);
    expect(registry.tokenRequests.at(-1)?.authorization).toBeUndefined();
  });

  it('asks credHelpers per registry and credsStore otherwise, with the server URL on stdin', async () => {
    const registry = await registryWith(
      { kind: 'basic', username: 'carol', password: 'from-helper' },
      { username: 'carol', password: 'from-helper' },
    );
    const perRegistry = helper('per-registry', `echo '{"Username":"carol","Secret":"from-helper"}'`);
    const dir = home({
      '.docker/config.json': { credHelpers: { [registry.host]: 'per-registry' }, credsStore: 'absent' },
    });
    expect(await pullWith(registry, dir, { PATH: perRegistry.path })).toBe(image.digest);
    expect(readFileSync(perRegistry.log, 'utf8')).toBe(registry.host);

    const store = helper('store', `echo '{"Username":"carol","Secret":"from-helper"}'`);
    const withStore = home({
      '.docker/config.json': { auths: { [registry.host]: {} }, credsStore: 'store' },
    });
    expect(await pullWith(registry, withStore, { PATH: store.path })).toBe(image.digest);
  });

  it('takes a helper’s <token> user name as an identity token', async () => {
    const registry = await registryWith(
      { kind: 'bearer', username: 'ci', password: 'pw', refreshToken: 'from-keychain' },
      { username: 'ci', password: 'pw' },
    );
    const keychain = helper('keychain', `echo '{"Username":"<token>","Secret":"from-keychain"}'`);
    const dir = home({ '.docker/config.json': { credsStore: 'keychain' } });
    expect(await pullWith(registry, dir, { PATH: keychain.path })).toBe(image.digest);
  });

  it('names the helper that is missing or fails, and treats “credentials not found” as anonymous', async () => {
    const lookup = (files: Record<string, unknown>, PATH = process.env.PATH ?? '') =>
      dockerCredentials({ homeDir: home(files), env: { PATH } })('quay.io');
    await expect(lookup({ '.docker/config.json': { credsStore: 'nowhere-to-be-found' } })).rejects.toThrow(
      'credential helper docker-credential-nowhere-to-be-found (for quay.io) is not on PATH',
    );
    const broken = helper('broken', `echo 'keychain locked' >&2; exit 1`);
    await expect(lookup({ '.docker/config.json': { credsStore: 'broken' } }, broken.path)).rejects.toThrow(
      'credential helper docker-credential-broken failed for quay.io: keychain locked',
    );
    const empty = helper('empty', `echo 'credentials not found in native keychain'; exit 1`);
    expect(await lookup({ '.docker/config.json': { credsStore: 'empty' } }, empty.path)).toBeUndefined();
    await expect(lookup({ '.docker/config.json': '{"auths": [' })).rejects.toMatchObject({
      code: 'OCI_CREDENTIALS_INVALID',
      message: expect.stringContaining('config.json: not JSON'),
    });
    await expect(
      lookup({ '.docker/config.json': { credHelpers: { 'quay.io': '../evil' } } }),
    ).rejects.toThrow('credHelpers["quay.io"] is not a helper name');
    await expect(lookup({ '.docker/config.json': ' '.repeat(2 * 1024 * 1024) })).rejects.toThrow(
      "more than a login file's 1048576",
    );
  });

  it('reads the legacy ~/.dockercfg (registry → {auth, email}) after ~/.docker/config.json', async () => {
    const registry = await registryWith(
      { kind: 'basic', username: 'old', password: 'timer' },
      { username: 'old', password: 'timer' },
    );
    const legacy = {
      [`https://${registry.host}`]: { auth: basic('old', 'timer'), email: 'old@example.com' },
    };
    expect(await pullWith(registry, home({ '.dockercfg': legacy }))).toBe(image.digest);
    expect(registry.requests.at(-1)?.authorization).toBe(`Basic ${basic('old', 'timer')}`);
    // config.json without an entry for the registry (another registry, an empty auths) leaves it to .dockercfg.
    const other = { auths: { 'quay.io': { auth: basic('q', 'q') } } };
    expect(await pullWith(registry, home({ '.docker/config.json': other, '.dockercfg': legacy }))).toBe(
      image.digest,
    );
    // $DOCKER_CONFIG moves config.json, not ~/.dockercfg.
    expect(
      await pullWith(registry, home({ '.dockercfg': legacy }), { DOCKER_CONFIG: join(scratch, 'nowhere') }),
    ).toBe(image.digest);
    // Docker Hub's legacy key is the one docker login wrote then.
    const hub = dockerCredentials({
      homeDir: home({ '.dockercfg': { [DOCKER_HUB_AUTH_KEY]: { auth: basic('d', 'h'), email: '' } } }),
      env: {},
    });
    expect(await hub('docker.io')).toEqual({ username: 'd', password: 'h' });
    expect(await hub('quay.io')).toBeUndefined();
  });

  it('takes ~/.docker/config.json’s entry over ~/.dockercfg’s, and any earlier file’s', async () => {
    const lookup = (files: Record<string, unknown>, env: Record<string, string> = {}) =>
      dockerCredentials({ homeDir: home(files), env })('quay.io');
    const legacy = { 'quay.io': { auth: basic('legacy', 'pw'), email: 'e@example.com' } };
    expect(
      await lookup({
        '.docker/config.json': { auths: { 'quay.io': { auth: basic('new', 'pw') } } },
        '.dockercfg': legacy,
      }),
    ).toEqual({ username: 'new', password: 'pw' });
    expect(
      await lookup({
        '.config/containers/auth.json': { auths: { 'quay.io': { auth: basic('podman', 'pw') } } },
        '.dockercfg': legacy,
      }),
    ).toEqual({ username: 'podman', password: 'pw' });
    // A config.json credential helper for the registry answers before .dockercfg is read.
    const keychain = helper('keychain-first', `echo '{"Username":"helper","Secret":"pw"}'`);
    expect(
      await lookup(
        { '.docker/config.json': { credHelpers: { 'quay.io': 'keychain-first' } }, '.dockercfg': '{' },
        { PATH: keychain.path },
      ),
    ).toEqual({ username: 'helper', password: 'pw' });
    // A malformed .dockercfg is not read while an earlier file answers, as containers/image reads them.
    expect(
      await lookup({
        '.docker/config.json': { auths: { 'quay.io': { auth: basic('new', 'pw') } } },
        '.dockercfg': 'not json',
      }),
    ).toEqual({ username: 'new', password: 'pw' });
  });

  it('names ~/.dockercfg by its path when it is malformed', async () => {
    const lookup = (dockercfg: unknown) => {
      const dir = home({ '.dockercfg': dockercfg });
      return {
        path: join(dir, '.dockercfg'),
        answer: dockerCredentials({ homeDir: dir, env: {} })('quay.io'),
      };
    };
    const notJson = lookup('{"quay.io": {');
    await expect(notJson.answer).rejects.toMatchObject({
      code: 'OCI_CREDENTIALS_INVALID',
      message: expect.stringContaining(`${notJson.path}: not JSON`),
    });
    const notObject = lookup(['quay.io']);
    await expect(notObject.answer).rejects.toThrow(`${notObject.path}: not a JSON object`);
    const entry = lookup({ 'quay.io': 'dXNlcjpwdw==' });
    await expect(entry.answer).rejects.toThrow(`${entry.path}: ["quay.io"] is not an object`);
    const auth = lookup({ 'quay.io': { auth: 42 } });
    await expect(auth.answer).rejects.toThrow(`${auth.path}: ["quay.io"].auth is not a string`);
    const decoded = lookup({ 'quay.io': { auth: Buffer.from('no-colon').toString('base64') } });
    await expect(decoded.answer).rejects.toThrow(
      `${decoded.path}: ["quay.io"].auth is not base64 of user:password`,
    );
  });

  it('finds Docker Hub under docker’s https://index.docker.io/v1/ key and asks helpers for that URL', async () => {
    const hub = (files: Record<string, unknown>, PATH = process.env.PATH ?? '') =>
      dockerCredentials({ homeDir: home(files), env: { PATH } })('docker.io');
    expect(
      await hub({ '.docker/config.json': { auths: { [DOCKER_HUB_AUTH_KEY]: { auth: basic('d', 'h') } } } }),
    ).toEqual({
      username: 'd',
      password: 'h',
    });
    const hubHelper = helper('hub', `echo '{"Username":"d","Secret":"s"}'`);
    expect(await hub({ '.docker/config.json': { credsStore: 'hub' } }, hubHelper.path)).toEqual({
      username: 'd',
      password: 's',
    });
    expect(readFileSync(hubHelper.log, 'utf8')).toBe(DOCKER_HUB_AUTH_KEY);
  });
});
