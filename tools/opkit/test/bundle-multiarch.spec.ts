import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildImage, buildImageIndex, layerFromEntries, RegistryClient, writeLayout } from '@opkit/oci';
import { type ImageRegistry, startImageRegistry, workspaceRoot } from '@opkit/test-cluster';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { operatorProjectDir } from './support/operator-project.js';

// Platforms on a real registry on loopback: `bundle generate --platforms-from registry` states the platforms
// the operator and operand images all provide (labels and node affinity), and `bundle validate
// --select-optional name=multiarch` reads the same images and finds the bundle right, or names what is wrong.

const run = promisify(execFile);
const opkit = join(workspaceRoot, 'tools', 'opkit', 'bin', 'opkit.js');
const scratch = mkdtempSync(join(tmpdir(), 'opkit-multiarch-'));
let registry: ImageRegistry;

const image = (architecture: string, what: string) =>
  buildImage([layerFromEntries([{ path: 'what', content: `${what} ${architecture}` }])], { architecture });

beforeAll(async () => {
  registry = await startImageRegistry(join(scratch, 'registry'));
  const client = new RegistryClient({ plainHttp: true });
  await client.push(
    buildImageIndex([image('amd64', 'operator'), image('arm64', 'operator')]),
    `${registry.host}/memcached-operator:0.3.0`,
  );
  await client.push(
    buildImageIndex([image('amd64', 'memcached'), image('arm64', 'memcached')]),
    `${registry.host}/library/memcached:1.6`,
  );
  client.close();
}, 60_000);

afterAll(async () => {
  await registry?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

let copies = 0;
/** The Memcached operator's config/, its operand on the test's registry, its base CSV's labels `labels`. */
function operatorCopy(operand: string, labels: Record<string, string> = {}): string {
  const dir = join(scratch, `operator-${copies++}`);
  cpSync(join(operatorProjectDir('@opkit/memcached-operator'), 'config'), join(dir, 'config'), {
    recursive: true,
  });
  const manager = join(dir, 'config', 'manager', 'manager.yaml');
  writeFileSync(manager, readFileSync(manager, 'utf8').replace('docker.io/library/memcached:1.6', operand));
  const base = join(dir, 'config', 'manifests', 'bases', 'memcached-operator.clusterserviceversion.yaml');
  const csv = parse(readFileSync(base, 'utf8')) as { metadata: { labels?: Record<string, string> } };
  csv.metadata.labels = { ...csv.metadata.labels, ...labels };
  writeFileSync(base, stringify(csv));
  return dir;
}

function generate(operatorDir: string, out: string, ...flags: string[]) {
  return run(process.execPath, [
    opkit,
    'bundle',
    'generate',
    '--operator',
    operatorDir,
    '--package',
    'memcached-operator',
    '--version',
    '0.3.0',
    '--out',
    out,
    '--image',
    `${registry.host}/memcached-operator:0.3.0`,
    '--plain-http',
    ...flags,
  ]);
}

interface Csv {
  metadata: { labels: Record<string, string> };
  spec: { install: { spec: { deployments: { spec: { template: { spec: { affinity?: unknown } } } }[] } } };
}
const readCsv = (bundle: string): Csv =>
  parse(
    readFileSync(join(bundle, 'manifests', 'memcached-operator.clusterserviceversion.yaml'), 'utf8'),
  ) as Csv;

describe('bundle generate --platforms-from registry, then bundle validate --select-optional name=multiarch', () => {
  it('states amd64 and arm64, which both images provide, and the validator finds nothing to say', async () => {
    const out = join(scratch, 'bundle');
    await generate(
      operatorCopy(`${registry.host}/library/memcached:1.6`),
      out,
      '--platforms-from',
      'registry',
    );
    const csv = readCsv(out);
    expect(csv.metadata.labels).toMatchObject({
      'operatorframework.io/arch.amd64': 'supported',
      'operatorframework.io/arch.arm64': 'supported',
      'operatorframework.io/os.linux': 'supported',
    });
    expect(csv.spec.install.spec.deployments[0]?.spec.template.spec.affinity).toEqual({
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [
            {
              matchExpressions: [
                { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64', 'arm64'] },
                { key: 'kubernetes.io/os', operator: 'In', values: ['linux'] },
              ],
            },
          ],
        },
      },
    });
    const validated = await run(process.execPath, [
      opkit,
      'bundle',
      'validate',
      out,
      '--select-optional',
      'name=multiarch',
      '--plain-http',
      '-o',
      'json-alpha1',
    ]);
    expect(JSON.parse(validated.stdout)).toEqual({ passed: true, outputs: null });
  });

  it("refuses a base CSV's s390x label that the images lack, naming the label and each image", async () => {
    const failed = await generate(
      operatorCopy(`${registry.host}/library/memcached:1.6`, {
        'operatorframework.io/arch.s390x': 'supported',
      }),
      join(scratch, 'refused'),
      '--platforms-from',
      'registry',
    ).catch((e: { code: number; stderr: string }) => e);
    expect(failed).toMatchObject({ code: 1 });
    for (const name of ['memcached-operator:0.3.0', 'library/memcached:1.6']) {
      expect((failed as { stderr: string }).stderr).toContain(
        `label operatorframework.io/arch.s390x of the base CSV: image ${registry.host}/${name} provides no s390x (it provides linux/amd64, linux/arm64)`,
      );
    }
  });

  it('keeps the base CSV’s labels, in one line, when an image cannot be read and --unreadable-images keep', async () => {
    const out = join(scratch, 'kept');
    const missing = `${registry.host}/library/memcached:9.9`;
    const { stderr } = await generate(
      operatorCopy(missing),
      out,
      '--platforms-from',
      'registry',
      '--unreadable-images',
      'keep',
    );
    expect(stderr).toBe(
      `platforms not derived: cannot read image ${missing} (manifest not found on ${registry.host} for ${missing}); the base CSV's labels are kept as written\n`,
    );
    expect(readCsv(out).metadata.labels ?? {}).not.toHaveProperty('operatorframework.io/os.linux');
  });

  it('fails by default when an image cannot be read, naming it and the ways on', async () => {
    const missing = `${registry.host}/library/memcached:9.9`;
    const failed = await generate(
      operatorCopy(missing),
      join(scratch, 'unread'),
      '--platforms-from',
      'registry',
    ).catch((e: { code: number; stderr: string }) => e);
    expect(failed).toMatchObject({ code: 1 });
    expect((failed as { stderr: string }).stderr).toBe(
      `opkit: cannot read the platforms of image ${missing}: manifest not found on ${registry.host} for ${missing} (push it, name its OCI layout with --image-layout, give --platforms, or keep the base CSV's labels with --unreadable-images keep)\n`,
    );
  });

  it('reads only OCI layouts with --platforms-from layout, for images not pushed anywhere', async () => {
    const operator = 'unpushed.example/memcached-operator:0.3.0';
    const operand = 'unpushed.example/memcached:1.6';
    const layouts = join(scratch, 'layouts');
    await writeLayout(join(layouts, 'operator'), [
      { image: buildImageIndex([image('arm64', 'op')]), tag: '0.3.0' },
    ]);
    await writeLayout(join(layouts, 'operand'), [{ image: image('arm64', 'mc'), tag: '1.6' }]);
    const out = join(scratch, 'from-layouts');
    await run(process.execPath, [
      opkit,
      ...['bundle', 'generate', '--operator', operatorCopy(operand), '--package', 'memcached-operator'],
      ...['--version', '0.3.0', '--out', out, '--image', operator, '--platforms-from', 'layout'],
      ...['--image-layout', `${operator}=${join(layouts, 'operator')}:0.3.0`],
      ...['--image-layout', `${operand}=${join(layouts, 'operand')}:1.6`],
    ]);
    expect(readCsv(out).metadata.labels).toMatchObject({
      'operatorframework.io/arch.arm64': 'supported',
      'operatorframework.io/os.linux': 'supported',
    });
    expect(readCsv(out).metadata.labels).not.toHaveProperty('operatorframework.io/arch.amd64');
  });

  it('reports an image the registry does not have as the Go validator reports one it cannot inspect', async () => {
    const out = join(scratch, 'unreadable');
    await generate(operatorCopy(`${registry.host}/library/memcached:1.6`), out, '--platforms', 'linux/amd64');
    const csvFile = join(out, 'manifests', 'memcached-operator.clusterserviceversion.yaml');
    const missing = `${registry.host}/library/memcached:9.9`;
    writeFileSync(
      csvFile,
      readFileSync(csvFile, 'utf8').replaceAll(`${registry.host}/library/memcached:1.6`, missing),
    );
    const { stdout } = await run(process.execPath, [
      opkit,
      'bundle',
      'validate',
      out,
      '--select-optional',
      'name=multiarch',
      '--plain-http',
    ]);
    expect(stdout).toContain(
      `unable to inspect the image (${missing}) : manifest not found on ${registry.host} for ${missing}`,
    );
  });
});

describe('bundle generate without a platform flag', () => {
  it("states package.json's opkit.platforms, as bundle build-all does", async () => {
    const operator = operatorCopy(`${registry.host}/library/memcached:1.6`);
    const opkitField = {
      package: 'memcached-operator',
      channels: ['alpha'],
      image: `${registry.host}/memcached-operator`,
      platforms: ['linux/amd64', 'linux/arm64'],
    };
    writeFileSync(join(operator, 'package.json'), JSON.stringify({ version: '0.3.0', opkit: opkitField }));
    const out = join(scratch, 'from-package-json');
    await generate(operator, out);
    const csv = readCsv(out);
    expect(csv.metadata.labels).toMatchObject({
      'operatorframework.io/arch.amd64': 'supported',
      'operatorframework.io/arch.arm64': 'supported',
      'operatorframework.io/os.linux': 'supported',
    });
    expect(JSON.stringify(csv.spec.install.spec.deployments[0]?.spec.template.spec.affinity)).toContain(
      '{"key":"kubernetes.io/arch","operator":"In","values":["amd64","arm64"]}',
    );
  });

  it('refuses an upper-case --platforms in one line naming the value', async () => {
    const out = join(scratch, 'upper-case');
    const failed = generate(
      operatorCopy(`${registry.host}/library/memcached:1.6`),
      out,
      '--platforms',
      'Linux/AMD64',
    );
    await expect(failed).rejects.toMatchObject({
      stderr:
        'opkit: --platforms: platform "Linux/AMD64" is not os/architecture[/variant] in lower case, e.g. linux/arm64\n',
    });
  });
});
