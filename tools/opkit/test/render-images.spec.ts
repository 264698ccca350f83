// `opkit catalog render` and `opkit catalog migrate` on images, against opm v1.73.0 on the same images in a
// local registry: a bundle image and a catalog image render to the same bytes as `opm render`, with and
// without `--migrate-level`, and `migrate` writes the same files as `opm migrate`. OCI layouts, which opm
// does not read, render as the image they hold.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  buildImage,
  bundleImage,
  catalogImage,
  layerFromEntries,
  RegistryClient,
  writeLayout,
} from '@opkit/oci';
import { readBundleAnnotations } from '@opkit/olm';
import {
  type ImageRegistry,
  opmBinary,
  releasedData,
  startImageRegistry,
  workspaceRoot,
} from '@opkit/test-cluster';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = workspaceRoot;
const opkitBin = join(root, 'tools', 'opkit', 'bin', 'opkit.js');
const bundleDir = releasedData.bundle('memcached-operator', '0.2.0');
const scratch = mkdtempSync(join(tmpdir(), 'opkit-render-images-'));
let registry: ImageRegistry;
let opm: string;
let bundleRef: string;
let catalogRef: string;

const opkit = async (...args: string[]) =>
  (await run(process.execPath, [opkitBin, ...args], { maxBuffer: 64 << 20 })).stdout;
const opmOut = async (...args: string[]) =>
  (await run(opm, [...args, '--use-http'], { maxBuffer: 64 << 20, env: { ...process.env, HOME: scratch } }))
    .stdout;

/** Every file under `dir`, by relative path. */
function tree(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files[path.slice(dir.length + 1)] = readFileSync(path, 'utf8');
  }
  return files;
}

beforeAll(async () => {
  opm = await opmBinary();
  registry = await startImageRegistry(join(scratch, 'registry'));
  const client = new RegistryClient({ plainHttp: true });
  for (const version of ['0.1.0', '0.3.0']) {
    const dir = releasedData.bundle('memcached-operator', version);
    await client.push(
      await bundleImage(dir, readBundleAnnotations(dir)),
      `${registry.host}/memcached-operator-bundle:v${version}`,
    );
  }
  const bundle = await bundleImage(bundleDir, readBundleAnnotations(bundleDir));
  bundleRef = `${registry.host}/memcached-operator-bundle:v0.2.0`;
  await client.push(bundle, bundleRef);
  await writeLayout(join(scratch, 'bundle-layout'), [{ image: bundle, tag: 'v0.2.0' }]);

  // A catalog whose bundle names its image and carries its manifests: what the migration rewrites.
  const configs = join(scratch, 'configs');
  mkdirSync(join(configs, 'memcached-operator'), { recursive: true });
  const blobs = [
    { schema: 'olm.package', name: 'memcached-operator', defaultChannel: 'alpha' },
    {
      schema: 'olm.channel',
      package: 'memcached-operator',
      name: 'alpha',
      entries: [{ name: 'memcached-operator.v0.2.0' }],
    },
  ];
  writeFileSync(
    join(configs, 'memcached-operator', 'catalog.json'),
    `${blobs.map((b) => JSON.stringify(b)).join('\n')}\n${await opkit('catalog', 'render', bundleRef, '--plain-http')}`,
  );
  catalogRef = `${registry.host}/catalog:v1`;
  await client.push(await catalogImage(configs), catalogRef);
  await client.push(
    buildImage([layerFromEntries([{ path: 'x', content: 'x' }])]),
    `${registry.host}/plain:v1`,
  );
  client.close();
}, 1_800_000);

afterAll(async () => {
  await registry?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

describe('catalog render of images', () => {
  it('renders a bundle image as opm does, with and without the migration to olm.csv.metadata', async () => {
    expect(await opkit('catalog', 'render', bundleRef, '--plain-http')).toBe(
      await opmOut('render', bundleRef, '-o', 'json'),
    );
    const migrated = await opkit(
      'catalog',
      'render',
      bundleRef,
      '--plain-http',
      '--migrate-level',
      'all',
      '-o',
      'yaml',
    );
    expect(migrated).toBe(await opmOut('render', bundleRef, '-o', 'yaml', '--migrate-level', 'all'));
    expect(migrated).toContain('type: olm.csv.metadata');
    expect(migrated).not.toContain('type: olm.bundle.object');
  });

  it('renders a catalog image as opm does, with and without the migration', async () => {
    expect(await opkit('catalog', 'render', catalogRef, '--plain-http')).toBe(
      await opmOut('render', catalogRef, '-o', 'json'),
    );
    expect(
      await opkit(
        'catalog',
        'render',
        catalogRef,
        '--plain-http',
        '--migrate-level',
        'bundle-object-to-csv-metadata',
      ),
    ).toBe(
      await opmOut('render', catalogRef, '-o', 'json', '--migrate-level', 'bundle-object-to-csv-metadata'),
    );
  });

  it('renders an OCI layout as the image it holds, named by the layout reference', async () => {
    const layoutRef = `${join(scratch, 'bundle-layout')}:v0.2.0`;
    const fromLayout = await opkit('catalog', 'render', layoutRef);
    const fromRegistry = await opkit('catalog', 'render', bundleRef, '--plain-http');
    // The bundle's image, and the related image opm adds for it, are the reference it was rendered from.
    expect(fromLayout).toBe(fromRegistry.replaceAll(bundleRef, layoutRef));
  });

  it('refuses an image that is neither a catalog nor a bundle, naming the labels it looked for', async () => {
    await expect(opkit('catalog', 'render', `${registry.host}/plain:v1`, '--plain-http')).rejects.toThrow(
      /plain:v1: neither a catalog image \(label operators.operatorframework.io.index.configs.v1\) nor a bundle image/,
    );
  });
});

describe('catalog build of a substitutes template', () => {
  it('puts a newer bundle image in the place of a released bundle as opm alpha render-template does', async () => {
    const image = (version: string) => `${registry.host}/memcached-operator-bundle:v${version}`;
    const rendered = async (version: string) =>
      JSON.parse(await opkit('catalog', 'render', image(version), '--plain-http')) as Record<string, unknown>;
    const template = {
      schema: 'olm.template.substitutes',
      entries: [
        { schema: 'olm.package', name: 'memcached-operator', defaultChannel: 'alpha' },
        {
          schema: 'olm.channel',
          package: 'memcached-operator',
          name: 'alpha',
          entries: [
            { name: 'memcached-operator.v0.1.0' },
            { name: 'memcached-operator.v0.2.0', replaces: 'memcached-operator.v0.1.0' },
          ],
        },
        await rendered('0.1.0'),
        await rendered('0.2.0'),
      ],
      substitutions: [{ name: image('0.3.0'), base: 'memcached-operator.v0.2.0' }],
    };
    const file = join(scratch, 'substitutes.json');
    writeFileSync(file, JSON.stringify(template));
    const out = join(scratch, 'substituted');
    mkdirSync(join(scratch, 'no-bundles'), { recursive: true });
    await opkit(
      'catalog',
      'build',
      '--template',
      file,
      '--bundles',
      join(scratch, 'no-bundles'),
      '--out',
      out,
      '--plain-http',
    );
    const ours = await opkit('catalog', 'render', out);
    expect(ours).toBe(await opmOut('alpha', 'render-template', 'substitutes', file, '-o', 'json'));
    expect(ours).toContain(
      '"replaces": "memcached-operator.v0.1.0",\n            "skips": [\n                "memcached-operator.v0.2.0"',
    );
  });
});

describe('catalog migrate', () => {
  it('writes a catalog image as opm migrate writes the catalog in it, per package, migrated', async () => {
    const theirs = join(scratch, 'opm-migrated');
    const ours = join(scratch, 'opkit-migrated');
    // opm migrate pulls over HTTPS only (it ignores --use-http): it reads the directory the image holds.
    await run(opm, ['migrate', join(scratch, 'configs'), theirs, '-o', 'yaml', '--migrate-level', 'all']);
    await opkit(
      'catalog',
      'migrate',
      catalogRef,
      ours,
      '-o',
      'yaml',
      '--migrate-level',
      'all',
      '--plain-http',
    );
    expect(tree(ours)).toEqual(tree(theirs));
    expect(Object.keys(tree(ours))).toEqual(['memcached-operator/catalog.yaml']);
  });

  it('refuses a bundle and an output directory that is not empty', async () => {
    await expect(
      opkit('catalog', 'migrate', bundleRef, join(scratch, 'out-bundle'), '--plain-http'),
    ).rejects.toThrow(/a bundle, not a catalog: migrate takes catalogs only/);
    const full = join(scratch, 'full');
    mkdirSync(full);
    writeFileSync(join(full, 'keep'), '');
    await expect(opkit('catalog', 'migrate', catalogRef, full, '--plain-http')).rejects.toThrow(
      /output dir ".*full" must be empty/,
    );
  });
});
