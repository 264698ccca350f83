import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  buildImage,
  buildImageIndex,
  isImageIndex,
  layerFromEntries,
  RegistryClient,
  readLayoutEntry,
} from '@opkit/oci';
import { type ImageRegistry, startImageRegistry } from '@opkit/test-cluster';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const opkit = join(import.meta.dirname, '..', 'bin', 'opkit.js');
const scratch = mkdtempSync(join(tmpdir(), 'opkit-pull-'));
let registry: ImageRegistry;

const amd64 = buildImage([layerFromEntries([{ path: 'arch', content: 'amd64' }])], { architecture: 'amd64' });
const arm64 = buildImage([layerFromEntries([{ path: 'arch', content: 'arm64' }])], { architecture: 'arm64' });
const index = buildImageIndex([amd64, arm64]);

/** Runs opkit; resolves with its exit code and output (never rejects). */
function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return cliWith({}, ...args);
}

/** Runs opkit with `extra` added to its environment. */
async function cliWith(
  extra: Readonly<Record<string, string>>,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    // No login files: the registry is anonymous, and the user's own must not matter.
    const env = {
      ...process.env,
      DOCKER_CONFIG: join(scratch, 'no-docker'),
      REGISTRY_AUTH_FILE: '',
      ...extra,
    };
    const { stdout, stderr } = await run(process.execPath, [opkit, ...args], { env, cwd: scratch });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

beforeAll(async () => {
  registry = await startImageRegistry(join(scratch, 'registry'));
  const client = new RegistryClient({ plainHttp: true });
  await client.push(index, `${registry.host}/team/app:v1`);
  client.close();
}, 60_000);

afterAll(async () => {
  await registry?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

describe('opkit image pull', () => {
  it('pulls a multi-platform image into an OCI layout that image push takes back unchanged', async () => {
    const reference = `${registry.host}/team/app:v1`;
    const layout = join(scratch, 'all');
    const pulled = await cli('image', 'pull', reference, layout, '--plain-http');
    expect(pulled, pulled.stderr).toMatchObject({ code: 0 });
    expect(pulled.stdout).toContain(`pulled ${reference}@${index.digest} into ${layout}:${reference}`);
    expect(pulled.stdout).toContain(`linux/arm64 ${arm64.digest}`);
    const content = await readLayoutEntry(layout, reference);
    expect(content.digest).toBe(index.digest);
    expect(isImageIndex(content) && content.images.map((i) => i.image.digest)).toEqual([
      amd64.digest,
      arm64.digest,
    ]);

    // The layout's tag is the reference: push without naming a destination goes back where it came from.
    const copy = `${registry.host}/team/copy:v1`;
    const pushed = await cli('image', 'push', layout, copy, '--plain-http');
    expect(pushed, pushed.stderr).toMatchObject({ code: 0 });
    const client = new RegistryClient({ plainHttp: true });
    expect((await client.resolve(copy)).digest).toBe(index.digest);
    client.close();

    // -o json: the result alone on stdout, progress on stderr.
    const json = await cli('image', 'pull', copy, join(scratch, 'json'), '--plain-http', '-o', 'json');
    expect(json, json.stderr).toMatchObject({ code: 0 });
    expect(JSON.parse(json.stdout)).toEqual({
      reference: copy,
      digest: index.digest,
      mediaType: index.mediaType,
      layout: join(scratch, 'json'),
      tag: copy,
      images: [
        { platform: 'linux/amd64', digest: amd64.digest },
        { platform: 'linux/arm64', digest: arm64.digest },
      ],
    });
    expect(json.stderr).toContain(`pulling ${copy}`);
  });

  it('--platform keeps that image alone; an absent or malformed platform and a missing image are one-line errors', async () => {
    const reference = `${registry.host}/team/app:v1`;
    const one = join(scratch, 'arm64');
    expect(
      await cli('image', 'pull', reference, one, '--plain-http', '--platform', 'linux/arm64', '--tag', 'v1'),
    ).toMatchObject({ code: 0 });
    expect((await readLayoutEntry(one, 'v1')).digest).toBe(arm64.digest);

    const missing = await cli(
      'image',
      'pull',
      reference,
      join(scratch, 'none'),
      '--plain-http',
      '--platform',
      'linux/s390x',
    );
    expect(missing).toMatchObject({ code: 1, stdout: '' });
    expect(missing.stderr).toContain('image index has no manifest for linux/s390x');

    const bad = await cli('image', 'pull', reference, join(scratch, 'bad'), '--platform', 'arm64');
    expect(bad).toMatchObject({ code: 1 });
    expect(bad.stderr).toBe(
      'opkit: --platform: platform "arm64" is not os/architecture[/variant] in lower case, e.g. linux/arm64\n',
    );

    const notThere = await cli(
      'image',
      'pull',
      `${registry.host}/team/absent:v1`,
      join(scratch, 'x'),
      '--plain-http',
    );
    expect(notThere).toMatchObject({ code: 1 });
    expect(notThere.stderr).toContain(
      `opkit: manifest not found on ${registry.host} for ${registry.host}/team/absent:v1\n`,
    );
  });

  it('never prints the password of a proxy it refuses', async () => {
    const proxy = 'https://alice:s3cret@proxy.test:3128';
    const pulled = await cliWith(
      { HTTPS_PROXY: proxy, HTTP_PROXY: proxy },
      'image',
      'pull',
      `${registry.host}/team/app:v1`,
      join(scratch, 'proxied'),
    );
    expect(pulled.code).toBe(1);
    expect(pulled.stderr).not.toContain('s3cret');
    expect(pulled.stderr.trimEnd()).toMatch(
      /^opkit: HTTPS?_PROXY="https:\/\/\*\*\*@proxy\.test:3128": only http:\/\/ proxies are supported$/,
    );
  });
});
