import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { opmBinary } from '@opkit/test-cluster';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BundleBlob,
  type Catalog,
  renderBasicTemplate,
  renderSemverTemplate,
  syntheticCatalog,
  validateCatalogDir,
  writeCatalog,
} from '../../src/catalog/index.js';
import { opmValidate } from './opm-helpers.js';

let opm: string;
let work: string;

beforeAll(async () => {
  opm = await opmBinary();
  work = await mkdtemp(join(tmpdir(), 'opkit-catalog-generated-'));
}, 1_800_000);

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

function bundle(pkg: string, version: string): BundleBlob {
  return {
    schema: 'olm.bundle',
    name: `${pkg}.v${version}`,
    package: pkg,
    image: `quay.io/example/${pkg}-bundle:v${version}`,
    properties: [{ type: 'olm.package', value: { packageName: pkg, version } }],
  };
}

async function expectBothAccept(name: string, catalog: Catalog): Promise<void> {
  const dir = join(work, name);
  await writeCatalog(dir, catalog);
  const theirs = await opmValidate(opm, dir);
  expect(theirs.message).toBe('');
  expect(theirs.passed).toBe(true);
  expect((await validateCatalogDir(dir)).filter((r) => r.level === 'error')).toEqual([]);
}

describe('generated catalogs pass opm validate', () => {
  it('a synthetic catalog of 4 packages x 120 bundles', async () => {
    await expectBothAccept('synthetic', syntheticCatalog({ packages: 4, bundlesPerPackage: 120 }));
  });

  const versions = [
    '0.9.0',
    '1.0.0',
    '1.0.1',
    '1.1.0',
    '1.1.1',
    '1.1.2',
    '1.2.0',
    '2.0.0',
    '2.0.1',
    '2.1.0-rc.1',
  ];
  const rendered = new Map(
    versions.map((v) => [`quay.io/example/op-bundle:v${v}`, bundle('op', v)] as const),
  );
  const list = (vs: string[]): string =>
    vs.map((v) => `  - image: quay.io/example/op-bundle:v${v}`).join('\n');

  it.each([
    ['minor channels', 'generateMinorChannels: true'],
    ['major channels', 'generateMajorChannels: true\ngenerateMinorChannels: false'],
    [
      'both kinds',
      'generateMajorChannels: true\ngenerateMinorChannels: true\ndefaultChannelTypePreference: major',
    ],
  ])('a semver template with %s', async (label, flags) => {
    const template = [
      'schema: olm.semver',
      flags,
      'candidate:',
      '  bundles:',
      list(versions),
      'fast:',
      '  bundles:',
      list(['1.0.0', '1.0.1', '1.1.0', '1.1.1', '2.0.0']),
      'stable:',
      '  bundles:',
      list(['1.0.0', '1.1.0', '1.1.2', '2.0.0', '2.0.1']),
    ].join('\n');
    const catalog = renderSemverTemplate(template, rendered, { file: 'semver.yaml' });
    await expectBothAccept(`semver-${label.replaceAll(' ', '-')}`, catalog);
  });

  it('a basic template', async () => {
    const template = `
schema: olm.template.basic
entries:
  - schema: olm.package
    name: op
    defaultChannel: stable
  - schema: olm.channel
    package: op
    name: stable
    entries:
      - name: op.v1.0.0
      - name: op.v1.1.0
        replaces: op.v1.0.0
        skipRange: '>=1.0.0 <1.1.0'
  - schema: olm.bundle
    image: quay.io/example/op-bundle:v1.0.0
  - schema: olm.bundle
    image: quay.io/example/op-bundle:v1.1.0
`;
    await expectBothAccept('basic', renderBasicTemplate(template, rendered, { file: 'basic.yaml' }));
  });
});
