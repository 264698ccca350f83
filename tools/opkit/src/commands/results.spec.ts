import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildImage, buildImageIndex, layerFromEntries, writeLayout } from '@opkit/oci';
import { releasedData } from '@opkit/test-cluster';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { parse } from 'yaml';
import { createProgram } from '../program.js';

const scratch = mkdtempSync(join(tmpdir(), 'opkit-results-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

/** Runs `opkit <args>` in this process and keeps what it writes to stdout and stderr. */
async function opkit(...args: string[]): Promise<{ stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => out.push(String(chunk)) > 0);
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => err.push(String(chunk)) > 0);
  try {
    await createProgram()
      .exitOverride()
      .parseAsync(['node', 'opkit', ...args]);
  } finally {
    vi.restoreAllMocks();
  }
  return { stdout: out.join(''), stderr: err.join('') };
}

/** The descriptor of `tag` in the layout's index.json. */
function layoutDescriptor(layout: string, tag: string) {
  const index = JSON.parse(readFileSync(join(layout, 'index.json'), 'utf8')) as {
    manifests: Array<{
      mediaType: string;
      digest: string;
      size: number;
      annotations?: Record<string, string>;
    }>;
  };
  const entry = index.manifests.find((m) => m.annotations?.['org.opencontainers.image.ref.name'] === tag);
  if (entry === undefined) throw new Error(`${layout}: no ${tag}`);
  return { mediaType: entry.mediaType, digest: entry.digest, size: entry.size };
}

// Each test builds images or a catalog three times, loading the OCI and OLM libraries on the first: more than
// the default 5 s on a loaded machine.
describe('-o text|json|yaml of the commands that build something', { timeout: 60_000 }, () => {
  it('bundle image: the digest line as text, the layout’s descriptor as json and yaml', async () => {
    const bundle = releasedData.bundle('memcached-operator', '0.2.0');
    const layout = join(scratch, 'bundle');
    const text = await opkit('bundle', 'image', bundle, '--layout', layout, '--tag', 'v0.2.0');
    const descriptor = layoutDescriptor(layout, 'v0.2.0');
    expect(text).toEqual({ stdout: `${descriptor.digest} ${layout}:v0.2.0\n`, stderr: '' });
    const expected = { reference: `${layout}:v0.2.0`, layout, tag: 'v0.2.0', ...descriptor };
    const json = await opkit('bundle', 'image', bundle, '--layout', layout, '--tag', 'v0.2.0', '-o', 'json');
    expect(json.stderr).toBe('');
    expect(JSON.parse(json.stdout)).toEqual(expected);
    expect(descriptor.mediaType).toBe('application/vnd.oci.image.manifest.v1+json');
    const yaml = await opkit(
      'bundle',
      'image',
      bundle,
      '--layout',
      layout,
      '--tag',
      'v0.2.0',
      '--output=yaml',
    );
    expect(parse(yaml.stdout)).toEqual(expected);
  });

  it('catalog image: the same result for the catalog-only image', async () => {
    const layout = join(scratch, 'catalog');
    const configs = releasedData.catalogConfigs;
    const text = await opkit('catalog', 'image', configs, '--layout', layout);
    const descriptor = layoutDescriptor(layout, 'latest');
    expect(text.stdout).toBe(`${descriptor.digest} ${layout}:latest\n`);
    const expected = { reference: `${layout}:latest`, layout, tag: 'latest', ...descriptor };
    const json = await opkit('catalog', 'image', configs, '--layout', layout, '-o', 'json');
    expect(JSON.parse(json.stdout)).toEqual(expected);
    const yaml = await opkit('catalog', 'image', configs, '--layout', layout, '-o', 'yaml');
    expect(parse(yaml.stdout)).toEqual(expected);
  });

  it('catalog image --base: the build’s lines as text; with json, those on stderr and the result on stdout', async () => {
    // A tiny two-platform "Node" base: the image is the CLI bundled onto each platform's image.
    const base = join(scratch, 'base');
    const platforms = ['amd64', 'arm64'].map((architecture) =>
      buildImage([layerFromEntries([{ path: `etc/${architecture}`, content: architecture }])], {
        architecture,
      }),
    );
    await writeLayout(base, [{ image: buildImageIndex(platforms), tag: 'node' }]);
    const layout = join(scratch, 'serving');
    const configs = releasedData.catalogConfigs;
    const json = await opkit(
      'catalog',
      'image',
      configs,
      '--layout',
      layout,
      '--base',
      `${base}:node`,
      '-o',
      'json',
    );
    const descriptor = layoutDescriptor(layout, 'latest');
    const result = JSON.parse(json.stdout);
    expect(result).toEqual({
      reference: `${layout}:latest`,
      layout,
      tag: 'latest',
      ...descriptor,
      platforms: [
        { platform: 'linux/amd64', digest: expect.stringMatching(/^sha256:/) },
        { platform: 'linux/arm64', digest: expect.stringMatching(/^sha256:/) },
      ],
    });
    expect(descriptor.mediaType).toBe('application/vnd.oci.image.index.v1+json');
    expect(json.stderr).toMatch(/^bundling .*main\.ts to \/app\/main\.mjs$/m);
    expect(json.stderr).toContain(`digest ${descriptor.digest}\n`);
    const text = await opkit('catalog', 'image', configs, '--layout', layout, '--base', `${base}:node`);
    const untimed = (lines: string) => lines.replace(/ in \d+ ms$/m, '');
    expect({ ...text, stdout: untimed(text.stdout) }).toEqual({ stdout: untimed(json.stderr), stderr: '' });
  });

  it('catalog build: the counts as text, the directory and every name as json and yaml', async () => {
    // The template names its bundles by path; here absolute ones, under the repository's bundles.
    const template = join(scratch, 'memcached-operator.yaml');
    writeFileSync(
      template,
      readFileSync(join(releasedData.catalogTemplates, 'memcached-operator.yaml'), 'utf8').replaceAll(
        'image: bundles/',
        `image: ${releasedData.bundles}/`,
      ),
    );
    const out = join(scratch, 'configs');
    const build = (...extra: string[]) =>
      opkit(
        'catalog',
        'build',
        '--template',
        template,
        '--bundles',
        releasedData.bundles,
        '--out',
        out,
        ...extra,
      );
    expect(await build()).toEqual({
      stdout: `wrote ${out}: 1 packages, 1 channels, 3 bundles\n`,
      stderr: '',
    });
    const expected = {
      out,
      packages: ['memcached-operator'],
      channels: [{ package: 'memcached-operator', name: 'alpha' }],
      bundles: ['0.1.0', '0.2.0', '0.3.0'].map((v) => ({
        package: 'memcached-operator',
        name: `memcached-operator.v${v}`,
      })),
    };
    const json = await build('-o', 'json');
    expect(json.stderr).toBe('');
    expect(JSON.parse(json.stdout)).toEqual(expected);
    expect(parse((await build('-o', 'yaml')).stdout)).toEqual(expected);
  });
});
