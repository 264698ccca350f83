import { describe, expect, it } from 'vitest';
import type { LoadedBundle } from '../bundle/load.js';
import type { ClusterServiceVersion } from '../manifest/cluster-service-version.js';
import type { OperatorRelease } from './operator-release.js';
import { bundleDisagreements } from './release-identity.js';

const manifest = 'operators/demo/package.json';
const release: OperatorRelease = {
  manifest,
  operatorDir: 'operators/demo',
  version: '0.2.0',
  package: 'demo',
  channels: ['alpha', 'stable'],
  image: 'registry.example/demo',
  replaces: '0.1.0',
};

/** The bundle of demo 0.2.0 as `bundle build-all` writes it, with fields changed. */
function bundle(channels: string, defaultChannel: string, replaces?: string): LoadedBundle {
  const csv = {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'ClusterServiceVersion',
    metadata: { name: 'demo.v0.2.0' },
    spec: { version: '0.2.0', ...(replaces === undefined ? {} : { replaces }) },
  } as unknown as ClusterServiceVersion;
  return {
    dir: `${process.cwd()}/bundles/demo/0.2.0`,
    packageName: 'demo',
    channels: channels.split(','),
    defaultChannel,
    annotations: {
      'operators.operatorframework.io.bundle.channels.v1': channels,
      'operators.operatorframework.io.bundle.channel.default.v1': defaultChannel,
    },
    csv,
    manifests: [
      { file: 'manifests/demo.clusterserviceversion.yaml', object: csv, size: 0, compressedSize: 0 },
    ],
    dependencies: [],
    properties: [],
  };
}

describe("the current version's bundle held to the operator's release identity", () => {
  it('agrees when the annotations and the CSV say what package.json says', () => {
    expect(bundleDisagreements(bundle('alpha,stable', 'alpha', 'demo.v0.1.0'), release)).toEqual([]);
  });

  it('names the bundle file and the package.json field of each disagreement, one line each', () => {
    expect(bundleDisagreements(bundle('alpha', 'stable'), release)).toEqual([
      `bundles/demo/0.2.0/metadata/annotations.yaml: operators.operatorframework.io.bundle.channels.v1 is alpha, but ${manifest} opkit.channels is alpha,stable`,
      `bundles/demo/0.2.0/metadata/annotations.yaml: operators.operatorframework.io.bundle.channel.default.v1 is stable, but ${manifest} opkit.channels[0] is alpha`,
      `bundles/demo/0.2.0/manifests/demo.clusterserviceversion.yaml: spec.replaces is not set, but ${manifest} opkit.replaces is 0.1.0`,
    ]);
  });
});
