import { describe, expect, it } from 'vitest';
import type { ClusterServiceVersion } from '../manifest/cluster-service-version.js';
import type { ImageOsArch } from '../validation/multiarch.js';
import { commonPlatforms, setPlatforms } from './platforms.js';

const linux = (...archs: string[]): ImageOsArch[] =>
  archs.map((architecture) => ({ os: 'linux', architecture }));

/** A CSV with one Deployment whose pod spec is `pod`, and the base labels `labels`. */
function csvWith(pod: Record<string, unknown> = {}, labels?: Record<string, string>): ClusterServiceVersion {
  return {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'ClusterServiceVersion',
    metadata: { name: 'demo.v0.1.0', ...(labels === undefined ? {} : { labels }) },
    spec: {
      displayName: 'Demo',
      install: {
        strategy: 'deployment',
        spec: {
          deployments: [
            {
              name: 'demo',
              spec: { template: { spec: { containers: [{ name: 'manager', image: 'm' }], ...pod } } },
            },
          ],
        },
      },
    },
  } as ClusterServiceVersion;
}

/** The pod spec of the CSV's one Deployment. */
function podOf(csv: ClusterServiceVersion): Record<string, unknown> {
  const [deployment] = csv.spec.install.spec?.deployments ?? [];
  if (deployment === undefined) throw new Error('the CSV has a Deployment');
  return (deployment.spec as { template: { spec: Record<string, unknown> } }).template.spec;
}

describe('commonPlatforms', () => {
  it('keeps only what every image provides, once each, in the first image’s order', () => {
    const images = new Map([
      ['manager', [...linux('arm64', 'amd64', 's390x'), ...linux('arm64')]],
      ['operand', linux('amd64', 'arm64', 'ppc64le')],
    ]);
    expect(commonPlatforms(images)).toEqual(linux('arm64', 'amd64'));
  });
});

describe('setPlatforms', () => {
  it('adds the arch and os labels and a required node affinity for the common platforms', () => {
    const csv = csvWith({}, { keep: 'me' });
    setPlatforms(csv, {
      kind: 'images',
      images: new Map([
        ['m', linux('arm64', 'amd64')],
        ['o', linux('amd64', 'arm64', 's390x')],
      ]),
    });
    expect(csv.metadata.labels).toEqual({
      keep: 'me',
      'operatorframework.io/arch.amd64': 'supported',
      'operatorframework.io/arch.arm64': 'supported',
      'operatorframework.io/os.linux': 'supported',
    });
    expect(podOf(csv).affinity).toEqual({
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
  });

  it("adds the platforms to every term the author wrote, and keeps the author's own arch expression", () => {
    const zone = { key: 'topology.kubernetes.io/zone', operator: 'In', values: ['a'] };
    const arch = { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] };
    const csv = csvWith({
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [zone] }, { matchExpressions: [arch] }],
          },
        },
      },
    });
    setPlatforms(csv, { kind: 'given', platforms: linux('amd64', 'arm64'), source: '--platforms' });
    const os = { key: 'kubernetes.io/os', operator: 'In', values: ['linux'] };
    expect(podOf(csv).affinity).toEqual({
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [
            {
              matchExpressions: [
                zone,
                { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64', 'arm64'] },
                os,
              ],
            },
            { matchExpressions: [arch, os] },
          ],
        },
      },
    });
  });

  it.each([
    ['NotIn', { key: 'kubernetes.io/arch', operator: 'NotIn', values: ['s390x'] }],
    ['Exists', { key: 'kubernetes.io/arch', operator: 'Exists' }],
    ['a broader In', { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64', 's390x'] }],
  ])(
    "keeps the author's %s on kubernetes.io/arch and still restricts the term to the platforms",
    (_, own) => {
      const csv = csvWith({
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [{ matchExpressions: [own] }],
            },
          },
        },
      });
      setPlatforms(csv, { kind: 'given', platforms: linux('amd64', 'arm64'), source: '--platforms' });
      expect(podOf(csv).affinity).toEqual({
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              {
                matchExpressions: [
                  own,
                  { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64', 'arm64'] },
                  { key: 'kubernetes.io/os', operator: 'In', values: ['linux'] },
                ],
              },
            ],
          },
        },
      });
    },
  );

  it('refuses a base label for a platform an image lacks, naming the label and the image', () => {
    const csv = csvWith({}, { 'operatorframework.io/arch.s390x': 'supported' });
    const images = new Map([
      ['registry.example/op:1', linux('amd64', 's390x')],
      ['registry.example/operand:2', linux('amd64', 'arm64')],
    ]);
    expect(() => setPlatforms(csv, { kind: 'images', images })).toThrow(
      'label operatorframework.io/arch.s390x of the base CSV: image registry.example/operand:2 provides no s390x (it provides linux/amd64, linux/arm64)',
    );
    expect(csv.metadata.labels).toEqual({ 'operatorframework.io/arch.s390x': 'supported' });
    expect(podOf(csv).affinity).toBeUndefined();
  });

  it('refuses platforms the labels cannot state: they say every OS with every architecture', () => {
    const platforms = [...linux('amd64', 'arm64'), { os: 'windows', architecture: 'amd64' }];
    expect(() => setPlatforms(csvWith(), { kind: 'given', platforms, source: '--platforms' })).toThrow(
      'the common platforms linux/amd64, linux/arm64, windows/amd64 are no OSes × architectures the labels can state (windows/arm64 missing)',
    );
  });

  it('refuses images with no platform in common', () => {
    const images = new Map([
      ['a', linux('amd64')],
      ['b', linux('arm64')],
    ]);
    expect(() => setPlatforms(csvWith(), { kind: 'images', images })).toThrow(
      'the images have no platform in common',
    );
  });
});
