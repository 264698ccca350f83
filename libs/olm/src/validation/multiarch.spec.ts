import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildImage, buildImageIndex, layerFromEntries, type OciImage, writeLayout } from '@opkit/oci';
import { releasedData } from '@opkit/test-cluster';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { inspectImagePlatforms } from '../action/image-platforms.js';
import { setPlatforms } from '../csv/platforms.js';
import type { ClusterServiceVersion } from '../manifest/cluster-service-version.js';
import type { ValidationBundle } from './bundle-model.js';
import { type ImageOsArch, validateMultiArch } from './multiarch.js';
import { selectOptionalValidators } from './optional-validators.js';
import { formatValidationError } from './result.js';
import { validateBundleDirReadingImages } from './validate-bundle-dir.js';

const MANAGER = 'registry.example/memcached-operator:0.3.0';
const OPERAND = 'docker.io/library/memcached:1.6';
const linux = (...archs: string[]): ImageOsArch[] =>
  archs.map((architecture) => ({ os: 'linux', architecture }));

const scratch = mkdtempSync(join(tmpdir(), 'olm-multiarch-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const image = (architecture: string, what: string): OciImage =>
  buildImage([layerFromEntries([{ path: 'what', content: `${what} ${architecture}` }])], { architecture });

/** OCI layouts standing in for the Memcached bundle's images. */
const layouts = {
  operator: join(scratch, 'layouts', 'operator'),
  operand: join(scratch, 'layouts', 'memcached'),
  operandSingle: join(scratch, 'layouts', 'memcached-amd64'),
};

beforeAll(async () => {
  await writeLayout(layouts.operator, [
    { image: buildImageIndex([image('amd64', 'operator'), image('arm64', 'operator')]), tag: '0.3.0' },
  ]);
  await writeLayout(layouts.operand, [
    { image: buildImageIndex([image('amd64', 'memcached'), image('arm64', 'memcached')]), tag: '1.6' },
  ]);
  await writeLayout(layouts.operandSingle, [{ image: image('amd64', 'memcached'), tag: '1.6' }]);
});

let copies = 0;
/**
 * A copy of the released Memcached 0.3.0 bundle, its CSV stating no platform (its arch/os labels and node
 * affinity taken out), then changed by `edit`.
 */
function memcachedBundle(edit: (csv: ClusterServiceVersion) => void): string {
  const dir = join(scratch, `bundle-${copies++}`);
  cpSync(releasedData.bundle('memcached-operator', '0.3.0'), dir, { recursive: true });
  const file = join(dir, 'manifests', 'memcached-operator.clusterserviceversion.yaml');
  const csv = parse(readFileSync(file, 'utf8')) as ClusterServiceVersion;
  csv.metadata.labels = Object.fromEntries(
    Object.entries(csv.metadata.labels ?? {}).filter(([label]) => !label.startsWith('operatorframework.io/')),
  );
  const install = csv.spec.install as {
    spec?: { deployments?: { spec: { template: { spec: { affinity?: unknown } } } }[] };
  };
  for (const deployment of install.spec?.deployments ?? []) delete deployment.spec.template.spec.affinity;
  edit(csv);
  writeFileSync(file, stringify(csv));
  return dir;
}

/** The multiarch findings of `bundle`, its images read from `images` (reference → layout). */
async function multiarch(bundle: string, images: Record<string, string>): Promise<string[]> {
  const report = await validateBundleDirReadingImages(bundle, { selectOptional: 'name=multiarch' }, (refs) =>
    inspectImagePlatforms(refs, { layouts: new Map(Object.entries(images)) }),
  );
  // The last result is the optional validator's.
  return (report.results.at(-1)?.errors ?? []).map(formatValidationError);
}

const bothMultiArch = { [MANAGER]: `${layouts.operator}:0.3.0`, [OPERAND]: `${layouts.operand}:1.6` };
const labelled = (csv: ClusterServiceVersion) =>
  setPlatforms(csv, {
    kind: 'images',
    images: new Map([
      [MANAGER, linux('amd64', 'arm64')],
      [OPERAND, linux('amd64', 'arm64')],
    ]),
  });
const prefix = 'Warning: Value memcached-operator.v0.3.0: ';

describe('multiarch on the Memcached bundle, images read from OCI layouts', () => {
  it('is picked by name=multiarch alone, as operator-sdk labels it (not in suite=operatorframework)', () => {
    expect(selectOptionalValidators('name=multiarch').map((v) => v.name)).toEqual(['multiarch']);
    expect(selectOptionalValidators('suite=operatorframework').map((v) => v.name)).not.toContain('multiarch');
  });

  it('passes without a finding when the CSV states amd64 and arm64, which both images provide', async () => {
    expect(await multiarch(memcachedBundle(labelled), bothMultiArch)).toEqual([]);
  });

  it('fails, with the Go validator’s error, when a label claims s390x that the images lack', async () => {
    const bundle = memcachedBundle((csv) => {
      labelled(csv);
      csv.metadata.labels = { ...csv.metadata.labels, 'operatorframework.io/arch.s390x': 'supported' };
    });
    const lacking = (image: string) =>
      `${prefix}check if the image ${image} should not support ["s390x"]. Note that this CSV has labels for this Arch(s) Your manager image ["${MANAGER}"] are providing this support OR the CSV is configured via labels to support it. Then, please verify if this image should not support it`;
    expect(await multiarch(bundle, bothMultiArch)).toEqual([
      lacking(OPERAND),
      lacking(MANAGER),
      `Error: Value memcached-operator.v0.3.0: not all images specified are providing the support described via the CSV labels. Note that (OS.architecture): (linux.s390x) was not found for the image(s) [${OPERAND} ${MANAGER} ${MANAGER}]`,
    ]);
  });

  it('warns of missing labels and missing node affinity when the CSV states nothing', async () => {
    expect(
      await multiarch(
        memcachedBundle(() => {}),
        bothMultiArch,
      ),
    ).toEqual([
      `${prefix}check if the CSV is missing the label (operatorframework.io/arch.<value>) for the Arch(s): ["amd64" "arm64"]. Be aware that your Operator manager image ["${MANAGER}"] provides this support. Thus, it is very likely that you want to provide it and if you support more than amd64 architectures, you MUST,use the required labels for all which are supported.Otherwise, your solution cannot be listed on the cluster for these architectures`,
      `${prefix}check if the CSV has a missing or invalid node affinity configuration for the image: "${MANAGER}". The image data suggests the following platforms are supported: ["linux/amd64" "linux/arm64"]`,
    ]);
  });

  it('warns when the node affinity allows a platform the image lacks, and lacks one it provides', async () => {
    const bundle = memcachedBundle((csv) => {
      labelled(csv);
      const [deployment] = csv.spec.install.spec?.deployments ?? [];
      if (deployment === undefined) throw new Error('the released bundle has a Deployment');
      const pod = (deployment.spec as { template: { spec: Record<string, unknown> } }).template.spec;
      pod.affinity = {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              {
                matchExpressions: [
                  { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64', 's390x'] },
                  { key: 'kubernetes.io/os', operator: 'In', values: ['linux'] },
                ],
              },
            ],
          },
        },
      };
    });
    expect(await multiarch(bundle, bothMultiArch)).toEqual([
      `${prefix}the CSV includes ["linux/s390x"] in the node affinity configuration for the image: "${MANAGER}", but the image data suggests the following platforms are supported: ["linux/amd64" "linux/arm64"]`,
      `${prefix}the image data indicates ["linux/arm64"] is supported for the image: "${MANAGER}", but the node affinity configuration for the image only specifies ["linux/amd64" "linux/s390x"]`,
    ]);
  });

  it("reads a single image (no index) by its config's platform", async () => {
    const findings = await multiarch(memcachedBundle(labelled), {
      [MANAGER]: `${layouts.operator}:0.3.0`,
      [OPERAND]: `${layouts.operandSingle}:1.6`,
    });
    expect(findings).toEqual([
      `${prefix}check if the image ${OPERAND} should not support ["arm64"]. Note that this CSV has labels for this Arch(s) Your manager image ["${MANAGER}"] are providing this support OR the CSV is configured via labels to support it. Then, please verify if this image should not support it`,
      `Error: Value memcached-operator.v0.3.0: not all images specified are providing the support described via the CSV labels. Note that (OS.architecture): (linux.arm64) was not found for the image(s) [${OPERAND}]`,
    ]);
  });

  it('reports an image it cannot read as the Go validator reports one it cannot inspect, and goes on', async () => {
    const findings = await multiarch(memcachedBundle(labelled), { [MANAGER]: `${layouts.operator}:0.3.0` });
    expect(findings).toEqual([
      `${prefix}unable to inspect the image (${OPERAND}) : ${OPERAND}: no registry client and no --image-layout for this image`,
    ]);
  });
});

/**
 * The Go validator's own test cases (operator-framework/api `multiarch_test.go`), their CSV
 * (`testdata/valid_bundle`, etcdoperator.v0.9.4) reduced to what the validator reads, and its expected texts.
 */
describe("multiarch on the Go validator's test cases", () => {
  const OPERATOR2 =
    'quay.io/coreos/etcd-operator2@sha256:66a37fd61a06a43969854ee6d3e21087a98b93838e284a6086b13917f96b0d9b';
  const OPERATOR =
    'quay.io/coreos/etcd-operator@sha256:66a37fd61a06a43969854ee6d3e21087a98b93838e284a6086b13917f96b0d9b';
  const ALL = linux('amd64', 'arm64', 'ppc64le', 's390x');

  function etcdBundle(options: { image?: string; labels?: Record<string, string>; affinity?: boolean } = {}) {
    const affinity = {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [
            {
              matchExpressions: [
                { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64', 'arm64', 'ppc64le', 's390x'] },
                { key: 'kubernetes.io/os', operator: 'In', values: ['linux'] },
              ],
            },
          ],
        },
      },
    };
    const containers = [
      ['manager', OPERATOR2],
      ['etcd-backup-operator', OPERATOR],
      ['etcd-restore-operator', OPERATOR],
    ].map(([name, image]) => ({ name, image: options.image ?? image }));
    const csv = {
      apiVersion: 'operators.coreos.com/v1alpha1',
      kind: 'ClusterServiceVersion',
      metadata: {
        name: 'etcdoperator.v0.9.4',
        labels: options.labels ?? { 'alm-owner-etcd': 'etcdoperator', 'operated-by': 'etcdoperator' },
      },
      spec: {
        displayName: 'etcd',
        install: {
          strategy: 'deployment',
          spec: {
            deployments: [
              {
                name: 'etcd-operator',
                spec: {
                  template: { spec: { ...(options.affinity === false ? {} : { affinity }), containers } },
                },
              },
            ],
          },
        },
        ...(options.image === undefined ? {} : { relatedImages: [{ name: 'opm', image: options.image }] }),
      },
    } as unknown as ClusterServiceVersion;
    const bundle: ValidationBundle = {
      name: 'etcdoperator.v0.9.4',
      packageName: '',
      channels: [''],
      defaultChannel: '',
      csv,
      objects: [],
      compressedSize: 0,
      size: 0,
    };
    return bundle;
  }
  const texts = (bundle: ValidationBundle, platforms: readonly ImageOsArch[]) =>
    validateMultiArch(bundle, () => ({ platforms })).errors.map(formatValidationError);

  it('warns of the missing arch labels when every image is a four-platform opm', () => {
    const opm = 'quay.io/operator-framework/opm:latest';
    expect(texts(etcdBundle({ image: opm }), ALL)).toEqual([
      'Warning: Value etcdoperator.v0.9.4: check if the CSV is missing the label (operatorframework.io/arch.<value>) for the Arch(s): ["amd64" "arm64" "ppc64le" "s390x"]. Be aware that your Operator manager image ["quay.io/operator-framework/opm:latest"] provides this support. Thus, it is very likely that you want to provide it and if you support more than amd64 architectures, you MUST,use the required labels for all which are supported.Otherwise, your solution cannot be listed on the cluster for these architectures',
    ]);
    const labels = Object.fromEntries(
      ['arm64', 'ppc64le', 's390x', 'amd64'].map((a) => [`operatorframework.io/arch.${a}`, 'supported']),
    );
    expect(texts(etcdBundle({ image: opm, labels }), ALL)).toEqual([]);
  });

  it('errs for each labelled platform the images lack', () => {
    const labels = {
      'operatorframework.io/arch.arm64': 'supported',
      'operatorframework.io/os.linux': 'supported',
      'operatorframework.io/os.other': 'supported',
    };
    const errors = validateMultiArch(etcdBundle({ labels }), () => ({ platforms: linux('amd64') }))
      .errors.filter((e) => e.level === 'Error')
      .map((e) => e.detail);
    expect(errors).toEqual(
      ['linux.arm64', 'other.arm64'].map(
        (p) =>
          `not all images specified are providing the support described via the CSV labels. Note that (OS.architecture): (${p}) was not found for the image(s) [${OPERATOR2} ${OPERATOR}]`,
      ),
    );
  });

  it('warns of node affinity missing, broader than the image, or narrower', () => {
    const affinityWarnings = (bundle: ValidationBundle, platforms: readonly ImageOsArch[]) =>
      validateMultiArch(bundle, (image) => ({ platforms: image === OPERATOR2 ? platforms : ALL }))
        .errors.map((e) => e.detail)
        .filter((d) => d.includes('node affinity') && d.includes(OPERATOR2));
    expect(affinityWarnings(etcdBundle({ affinity: false }), ALL)).toEqual([
      `check if the CSV has a missing or invalid node affinity configuration for the image: "${OPERATOR2}". The image data suggests the following platforms are supported: ["linux/amd64" "linux/arm64" "linux/ppc64le" "linux/s390x"]`,
    ]);
    expect(affinityWarnings(etcdBundle(), linux('amd64', 'arm64'))).toEqual([
      `the CSV includes ["linux/ppc64le" "linux/s390x"] in the node affinity configuration for the image: "${OPERATOR2}", but the image data suggests the following platforms are supported: ["linux/amd64" "linux/arm64"]`,
    ]);
    const other = [{ os: 'other', architecture: 'amd64' }, { os: 'other', architecture: 'arm64' }, ...ALL];
    expect(affinityWarnings(etcdBundle(), other)).toEqual([
      `the image data indicates ["other/amd64" "other/arm64"] is supported for the image: "${OPERATOR2}", but the node affinity configuration for the image only specifies ["linux/amd64" "linux/arm64" "linux/ppc64le" "linux/s390x"]`,
    ]);
  });

  it('refuses a container tool it does not know, in the Go words', () => {
    expect(
      validateMultiArch(etcdBundle(), () => ({ platforms: ALL }), {
        'container-tools': 'Invalid',
      }).errors.map(formatValidationError),
    ).toEqual([
      'Error: Value etcdoperator.v0.9.4: invalid value (container-tools) for (invalid). One of: [docker, podman, none] (If not set, the default value is docker)',
    ]);
  });
});
