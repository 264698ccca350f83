import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildImage, layerFromEntries, RegistryClient } from '@opkit/oci';
import {
  type ImageRegistry,
  opmBinary,
  releasedData,
  startImageRegistry,
  workspaceRoot,
} from '@opkit/test-cluster';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { operatorProjectDir } from './support/operator-project.js';

// Bundles and registries: `opkit bundle generate --use-image-digests` pins the operator image and the
// RELATED_IMAGE_* operand images to the digests a registry serves, as `operator-sdk generate bundle
// --use-image-digests` does; `opkit bundle push` pushes the bundle images, and `opkit catalog build
// --bundle-images` names them by digest, each bundle as `opm render` renders its image.

const run = promisify(execFile);
const root = workspaceRoot;
const opkit = join(root, 'tools', 'opkit', 'bin', 'opkit.js');
const scratch = mkdtempSync(join(tmpdir(), 'opkit-digests-'));
let registry: ImageRegistry;
const digests = new Map<string, string>();

/** The Memcached operator's config/, with its operand image moved to the test's registry. */
function operatorCopy(operandImage: string): string {
  const dir = join(scratch, 'operator');
  cpSync(join(operatorProjectDir('@opkit/memcached-operator'), 'config'), join(dir, 'config'), {
    recursive: true,
  });
  const manager = join(dir, 'config', 'manager', 'manager.yaml');
  writeFileSync(
    manager,
    readFileSync(manager, 'utf8').replace('docker.io/library/memcached:1.6', operandImage),
  );
  return dir;
}

beforeAll(async () => {
  registry = await startImageRegistry(join(scratch, 'registry'));
  const client = new RegistryClient({ plainHttp: true });
  for (const [name, content] of [
    ['memcached-operator:0.2.0', 'operator'],
    ['library/memcached:1.6', 'operand'],
  ] as const) {
    const image = buildImage([layerFromEntries([{ path: 'what', content }])]);
    await client.push(image, `${registry.host}/${name}`);
    digests.set(name, image.digest);
  }
  client.close();
}, 60_000);

afterAll(async () => {
  await registry?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

interface Csv {
  metadata: { annotations: Record<string, string> };
  spec: {
    relatedImages: { name: string; image: string }[];
    install: {
      spec: {
        deployments: {
          spec: {
            template: { spec: { containers: { image: string; env?: { name: string; value?: string }[] }[] } };
          };
        }[];
      };
    };
  };
}

describe('bundle generate --use-image-digests', () => {
  it('writes the operator and operand images by the digests the registry serves', async () => {
    const operatorDir = operatorCopy(`${registry.host}/library/memcached:1.6`);
    const out = join(scratch, 'bundle');
    await run(process.execPath, [
      opkit,
      'bundle',
      'generate',
      '--operator',
      operatorDir,
      '--package',
      'memcached-operator',
      '--version',
      '0.2.0',
      '--out',
      out,
      '--image',
      `${registry.host}/memcached-operator:0.2.0`,
      '--use-image-digests',
      '--plain-http',
    ]);
    const csv = parse(
      readFileSync(join(out, 'manifests', 'memcached-operator.clusterserviceversion.yaml'), 'utf8'),
    ) as Csv;
    const operator = `${registry.host}/memcached-operator@${digests.get('memcached-operator:0.2.0')}`;
    const operand = `${registry.host}/library/memcached@${digests.get('library/memcached:1.6')}`;
    expect(csv.metadata.annotations.containerImage).toBe(operator);
    const manager = csv.spec.install.spec.deployments[0]?.spec.template.spec.containers[0];
    expect(manager?.image).toBe(operator);
    expect(manager?.env?.find((e) => e.name === 'RELATED_IMAGE_MEMCACHED')?.value).toBe(operand);
    expect(csv.spec.relatedImages.map((r) => r.image).sort()).toEqual([operand, operator].sort());
    const validated = await run(process.execPath, [opkit, 'bundle', 'validate', out]);
    expect(validated.stdout).not.toMatch(/ERRO/);
  });

  it('refuses an image the registry does not have, naming it', async () => {
    const operatorDir = operatorCopy(`${registry.host}/library/memcached:9.9`);
    const failed = await run(process.execPath, [
      opkit,
      'bundle',
      'generate',
      '--operator',
      operatorDir,
      '--package',
      'memcached-operator',
      '--version',
      '0.2.0',
      '--out',
      join(scratch, 'refused'),
      '--image',
      `${registry.host}/memcached-operator:0.2.0`,
      '--use-image-digests',
      '--plain-http',
    ]).catch((e: { code: number; stderr: string }) => e);
    expect(failed).toMatchObject({ code: 1 });
    expect((failed as { stderr: string }).stderr).toContain(
      `cannot pin ${registry.host}/library/memcached:9.9 to a digest`,
    );
  });
});

describe('bundle push', () => {
  it('pushes every bundle image to <repository>/<package>-bundle:v<version>', async () => {
    const images = join(scratch, 'images');
    const layout = join(images, 'memcached-operator-bundle', '0.1.0');
    const built = await run(process.execPath, [
      opkit,
      'bundle',
      'image',
      releasedData.bundle('memcached-operator', '0.1.0'),
      '--layout',
      layout,
      '--tag',
      '0.1.0',
    ]);
    const digest = built.stdout.split(' ')[0];
    const pushed = await run(process.execPath, [
      opkit,
      'bundle',
      'push',
      '--images',
      images,
      '--repository',
      `${registry.host}/opkit`,
      '--plain-http',
    ]);
    const reference = `${registry.host}/opkit/memcached-operator-bundle:v0.1.0`;
    expect(pushed.stdout).toBe(`pushed ${reference}@${digest}\n`);
    const client = new RegistryClient({ plainHttp: true });
    expect((await client.resolve(reference)).digest).toBe(digest);
    client.close();

    const none = await run(process.execPath, [
      opkit,
      'bundle',
      'push',
      '--images',
      join(scratch, 'nothing'),
      '--repository',
      registry.host,
    ]).catch((e: { code: number; stderr: string }) => e);
    expect(none).toMatchObject({ code: 1 });
    expect((none as { stderr: string }).stderr).toContain(
      "no bundle images (<package>-bundle/<version>): run 'nx run bundle:build' first",
    );
  });
});

describe('catalog build --bundle-images', () => {
  const images = join(scratch, 'catalog-images');
  // Every released bundle of the repository, as the templates name them.
  const bundles = readdirSync(releasedData.bundles, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) =>
      readdirSync(join(releasedData.bundles, d.name)).map((version) => [d.name, version] as const),
    );
  // Templates name bundles by their path from the repository root, as catalog:build runs.
  const build = (out: string) =>
    run(
      process.execPath,
      [
        opkit,
        'catalog',
        'build',
        '--template',
        'catalog/templates/memcached-operator.yaml',
        'catalog/templates/redis-operator.yaml',
        '--bundles',
        'bundles',
        '--out',
        out,
        '--bundle-images',
        `${registry.host}/catalog`,
        '--plain-http',
      ],
      { cwd: root },
    );

  it('names every bundle by its pushed image digest, as opm render renders the image', async () => {
    for (const [pkg, version] of bundles) {
      await run(process.execPath, [
        opkit,
        'bundle',
        'image',
        releasedData.bundle(pkg, version),
        '--layout',
        join(images, `${pkg}-bundle`, version),
        '--tag',
        version,
      ]);
    }
    await run(process.execPath, [
      opkit,
      'bundle',
      'push',
      '--images',
      images,
      '--repository',
      `${registry.host}/catalog`,
      '--plain-http',
    ]);
    const out = join(scratch, 'catalog-by-image');
    await build(out);
    const blobs = readFileSync(join(out, 'memcached-operator', 'catalog.json'), 'utf8')
      .split(/\n(?=\{)/)
      .map((text) => JSON.parse(text) as { schema: string; name?: string; image?: string });
    const first = blobs.find((b) => b.schema === 'olm.bundle' && b.name === 'memcached-operator.v0.1.0');
    expect(first?.image).toMatch(
      new RegExp(`^${registry.host}/catalog/memcached-operator-bundle@sha256:[0-9a-f]{64}$`),
    );
    const opm = await opmBinary();
    const rendered = await run(opm, ['render', first?.image ?? '', '--use-http', '-o', 'json'], {
      cwd: scratch,
    });
    expect(first).toEqual(JSON.parse(rendered.stdout));
    await run(opm, ['validate', out]);
  });

  it('refuses a bundle whose pushed image is not this bundle', async () => {
    const other = buildImage([layerFromEntries([{ path: 'other', content: 'other' }])]);
    const client = new RegistryClient({ plainHttp: true });
    await client.push(other, `${registry.host}/catalog/redis-operator-bundle:v0.2.0`);
    client.close();
    const failed = await build(join(scratch, 'stale')).catch((e: { code: number; stderr: string }) => e);
    expect(failed).toMatchObject({ code: 1 });
    expect((failed as { stderr: string }).stderr).toContain(
      `${registry.host}/catalog/redis-operator-bundle:v0.2.0 is ${other.digest}, but`,
    );
  });
});
