import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BUNDLE_PACKAGE_LABEL, bundleImage } from './bundle-image.js';
import { CATALOG_CONFIGS_LABEL, catalogImage } from './catalog-image.js';
import { listTar } from './testing/tar-list.js';

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'oci-olm-'));
  dirs.push(dir);
  return dir;
}
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

const labels = {
  'operators.operatorframework.io.bundle.mediatype.v1': 'registry+v1',
  'operators.operatorframework.io.bundle.manifests.v1': 'manifests/',
  'operators.operatorframework.io.bundle.metadata.v1': 'metadata/',
  [BUNDLE_PACKAGE_LABEL]: 'memcached-operator',
  'operators.operatorframework.io.bundle.channels.v1': 'alpha',
};

async function bundleDir(withScorecard: boolean): Promise<string> {
  const dir = await tempDir();
  await mkdir(join(dir, 'manifests'));
  await mkdir(join(dir, 'metadata'));
  await writeFile(
    join(dir, 'manifests', 'memcached-operator.clusterserviceversion.yaml'),
    'kind: ClusterServiceVersion\n',
  );
  await writeFile(join(dir, 'metadata', 'annotations.yaml'), 'annotations: {}\n');
  await writeFile(join(dir, 'bundle.Dockerfile'), 'FROM scratch\n');
  if (withScorecard) {
    await mkdir(join(dir, 'tests', 'scorecard'), { recursive: true });
    await writeFile(join(dir, 'tests', 'scorecard', 'config.yaml'), 'kind: Configuration\n');
  }
  return dir;
}

describe('bundleImage', () => {
  it('puts manifests/ and metadata/ at the root and the annotations in config.Labels', async () => {
    const image = await bundleImage(await bundleDir(false), labels);
    expect(image.config.config?.Labels).toEqual(labels);
    expect(image.layers).toHaveLength(1);
    const files = (await listTar(image.layers[0]!.bytes)).map((e) => e.path);
    expect(files).toEqual([
      'manifests/',
      'manifests/memcached-operator.clusterserviceversion.yaml',
      'metadata/',
      'metadata/annotations.yaml',
    ]);
  });

  it('includes tests/scorecard when present', async () => {
    const image = await bundleImage(await bundleDir(true), labels);
    const files = (await listTar(image.layers[0]!.bytes)).map((e) => e.path);
    expect(files).toContain('tests/scorecard/config.yaml');
    expect(image.config.history?.[0]?.created_by).toContain('tests/scorecard/');
  });

  it('is reproducible across directories', async () => {
    const a = await bundleImage(await bundleDir(false), labels);
    const b = await bundleImage(await bundleDir(false), { ...labels });
    expect(b.digest).toBe(a.digest);
  });

  it('rejects a directory without metadata/ or labels without a package', async () => {
    const dir = await tempDir();
    await mkdir(join(dir, 'manifests'));
    await expect(bundleImage(dir, labels)).rejects.toThrow(/has no metadata\/ directory/);
    await expect(bundleImage(await bundleDir(false), {})).rejects.toMatchObject({
      code: 'OCI_INPUT_INVALID',
      message: expect.stringContaining(BUNDLE_PACKAGE_LABEL),
    });
  });
});

describe('catalogImage', () => {
  it('puts the tree under /configs and sets the configs label', async () => {
    const dir = await tempDir();
    await mkdir(join(dir, 'memcached-operator'));
    await writeFile(join(dir, 'memcached-operator', 'catalog.yaml'), 'schema: olm.package\n');
    await writeFile(join(dir, '.indexignore'), 'README.md\n');
    const image = await catalogImage(dir, { labels: { owner: 'me', [CATALOG_CONFIGS_LABEL]: '/elsewhere' } });
    expect(image.config.config?.Labels).toEqual({ owner: 'me', [CATALOG_CONFIGS_LABEL]: '/configs' });
    expect((await listTar(image.layers[0]!.bytes)).map((e) => e.path)).toEqual([
      'configs/',
      'configs/.indexignore',
      'configs/memcached-operator/',
      'configs/memcached-operator/catalog.yaml',
    ]);
  });

  it('rejects a missing directory', async () => {
    await expect(catalogImage(join(await tempDir(), 'none'))).rejects.toMatchObject({
      code: 'OCI_INPUT_INVALID',
    });
  });
});
