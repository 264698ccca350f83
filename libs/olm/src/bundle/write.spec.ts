import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { generateCsv } from '../csv/generate.js';
import { demoBaseCsv, demoOperatorObjects } from '../csv/testing.js';
import type { Manifest } from '../manifest/manifest.js';
import { bundleAnnotations, renderAnnotationsYaml, renderBundleDockerfile } from './annotations.js';
import { BundleError } from './errors.js';
import { manifestFileName, manifestFileNames } from './file-names.js';
import { loadBundle, readBundleAnnotations } from './load.js';
import { writeBundle } from './write.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'opkit-write-bundle-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const demo = () =>
  generateCsv({
    base: demoBaseCsv(),
    objects: demoOperatorObjects(),
    version: '0.1.0',
    operatorImage: 'registry.example/demo:0.1.0',
  });

describe('manifestFileName', () => {
  it('names files as operator-sdk does', () => {
    const obj = (apiVersion: string, kind: string, name: string, spec?: unknown): Manifest => ({
      apiVersion,
      kind,
      metadata: { name },
      spec,
    });
    expect([
      manifestFileName(obj('operators.coreos.com/v1alpha1', 'ClusterServiceVersion', 'x.v1.0.0'), 'x'),
      manifestFileName(
        obj('apiextensions.k8s.io/v1', 'CustomResourceDefinition', 'gizmos.demo.example.com', {
          group: 'demo.example.com',
          names: { plural: 'gizmos' },
        }),
        'x',
      ),
      manifestFileName(obj('v1', 'Service', 'demo-metrics'), 'x'),
      manifestFileName(obj('rbac.authorization.k8s.io/v1', 'ClusterRole', 'demo-viewer'), 'x'),
    ]).toStrictEqual([
      'x.clusterserviceversion.yaml',
      'demo.example.com_gizmos.yaml',
      'demo-metrics_v1_service.yaml',
      'demo-viewer_rbac.authorization.k8s.io_v1_clusterrole.yaml',
    ]);
  });

  it('prefixes duplicates with dup<N>_', () => {
    const cm: Manifest = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } };
    expect(manifestFileNames([cm, cm, cm], 'x')).toStrictEqual([
      'c_v1_configmap.yaml',
      'dup0_c_v1_configmap.yaml',
      'dup1_c_v1_configmap.yaml',
    ]);
  });
});

describe('bundle metadata', () => {
  const meta = {
    packageName: 'memcached-operator',
    channels: ['alpha'],
    otherLabels: {
      'operators.operatorframework.io.metrics.project_layout': 'go.kubebuilder.io/v4',
      'operators.operatorframework.io.metrics.builder': 'operator-sdk-v1.42.3',
      'operators.operatorframework.io.metrics.mediatype.v1': 'metrics+v1',
    },
    scorecard: true,
  };

  it('writes annotations.yaml byte for byte as the SDK does', () => {
    expect(renderAnnotationsYaml(meta)).toBe(`annotations:
  # Core bundle annotations.
  operators.operatorframework.io.bundle.mediatype.v1: registry+v1
  operators.operatorframework.io.bundle.manifests.v1: manifests/
  operators.operatorframework.io.bundle.metadata.v1: metadata/
  operators.operatorframework.io.bundle.package.v1: memcached-operator
  operators.operatorframework.io.bundle.channels.v1: alpha
  operators.operatorframework.io.metrics.builder: operator-sdk-v1.42.3
  operators.operatorframework.io.metrics.mediatype.v1: metrics+v1
  operators.operatorframework.io.metrics.project_layout: go.kubebuilder.io/v4

  # Annotations for testing.
  operators.operatorframework.io.test.mediatype.v1: scorecard+v1
  operators.operatorframework.io.test.config.v1: tests/scorecard/
`);
  });

  it('writes bundle.Dockerfile as the SDK does', () => {
    expect(
      renderBundleDockerfile(
        { packageName: 'memcached-operator', channels: ['alpha'], scorecard: true },
        'bundle',
      ),
    ).toBe(`FROM scratch

# Core bundle labels.
LABEL operators.operatorframework.io.bundle.mediatype.v1=registry+v1
LABEL operators.operatorframework.io.bundle.manifests.v1=manifests/
LABEL operators.operatorframework.io.bundle.metadata.v1=metadata/
LABEL operators.operatorframework.io.bundle.package.v1=memcached-operator
LABEL operators.operatorframework.io.bundle.channels.v1=alpha

# Labels for testing.
LABEL operators.operatorframework.io.test.mediatype.v1=scorecard+v1
LABEL operators.operatorframework.io.test.config.v1=tests/scorecard/

# Copy files to locations specified by labels.
COPY bundle/manifests /manifests/
COPY bundle/metadata /metadata/
COPY bundle/tests/scorecard /tests/scorecard/
`);
  });

  it('lists the annotations in the SDK order, the default channel only when set', () => {
    expect(
      bundleAnnotations({ packageName: 'p', channels: ['stable', 'fast'], defaultChannel: 'stable' }),
    ).toStrictEqual({
      'operators.operatorframework.io.bundle.mediatype.v1': 'registry+v1',
      'operators.operatorframework.io.bundle.manifests.v1': 'manifests/',
      'operators.operatorframework.io.bundle.metadata.v1': 'metadata/',
      'operators.operatorframework.io.bundle.package.v1': 'p',
      'operators.operatorframework.io.bundle.channels.v1': 'stable,fast',
      'operators.operatorframework.io.bundle.channel.default.v1': 'stable',
    });
  });
});

describe('writeBundle', () => {
  it('writes manifests with SDK file names, metadata and the Dockerfile', async () => {
    const { csv, manifests } = demo();
    const target = join(dir, 'bundle');
    const written = await writeBundle(target, {
      packageName: 'demo-operator',
      channels: ['stable'],
      defaultChannel: 'stable',
      csv,
      objects: manifests,
    });
    expect(written.files).toStrictEqual([
      'bundle.Dockerfile',
      'manifests/demo-gizmo-viewer-role_rbac.authorization.k8s.io_v1_clusterrole.yaml',
      'manifests/demo-manager-rolebinding_rbac.authorization.k8s.io_v1_clusterrolebinding.yaml',
      'manifests/demo-metrics_v1_service.yaml',
      'manifests/demo-operator.clusterserviceversion.yaml',
      'manifests/demo.example.com_gizmos.yaml',
      'metadata/annotations.yaml',
    ]);
    expect(parse(readFileSync(join(target, 'metadata/annotations.yaml'), 'utf8'))).toStrictEqual({
      annotations: {
        'operators.operatorframework.io.bundle.mediatype.v1': 'registry+v1',
        'operators.operatorframework.io.bundle.manifests.v1': 'manifests/',
        'operators.operatorframework.io.bundle.metadata.v1': 'metadata/',
        'operators.operatorframework.io.bundle.package.v1': 'demo-operator',
        'operators.operatorframework.io.bundle.channels.v1': 'stable',
        'operators.operatorframework.io.bundle.channel.default.v1': 'stable',
      },
    });
    expect(parse(readFileSync(join(target, 'manifests/demo-metrics_v1_service.yaml'), 'utf8'))).toStrictEqual(
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'demo-metrics' },
        spec: { ports: [{ port: 8443 }], selector: { app: 'demo' } },
      },
    );
    expect(
      parse(readFileSync(join(target, 'manifests/demo-operator.clusterserviceversion.yaml'), 'utf8')),
    ).toStrictEqual(JSON.parse(JSON.stringify(csv)));
    expect(readdirSync(dir)).toStrictEqual(['bundle']);
  });

  it('returns the annotations it wrote, as the annotations file reads back, scorecard and extra labels included', async () => {
    const { csv, manifests } = demo();
    const target = join(dir, 'bundle');
    const written = await writeBundle(target, {
      packageName: 'demo-operator',
      channels: ['stable', 'fast'],
      csv,
      objects: manifests,
      otherLabels: { 'operators.operatorframework.io.metrics.builder': 'opkit' },
      scorecardConfig: {
        apiVersion: 'scorecard.operatorframework.io/v1alpha3',
        kind: 'Configuration',
        metadata: { name: 'config' },
      },
    });
    expect(written.annotations).toStrictEqual(readBundleAnnotations(target));
    expect(Object.keys(written.annotations)).toStrictEqual(
      Object.keys(parse(readFileSync(join(target, 'metadata/annotations.yaml'), 'utf8')).annotations),
    );
    expect(written.annotations['operators.operatorframework.io.test.config.v1']).toBe('tests/scorecard/');
  });

  it('writes a bundle loadBundle reads back unchanged', async () => {
    const { csv, manifests } = demo();
    const target = join(dir, 'bundle');
    await writeBundle(target, {
      packageName: 'demo-operator',
      channels: ['stable', 'fast'],
      defaultChannel: 'fast',
      csv,
      objects: manifests,
      dependencies: [{ type: 'olm.package', value: { packageName: 'widgets', version: '>=1.0.0' } }],
      properties: [{ type: 'example.com/tier', value: 'gold' }],
      scorecardConfig: {
        apiVersion: 'scorecard.operatorframework.io/v1alpha3',
        kind: 'Configuration',
        metadata: { name: 'config' },
      },
    });
    const loaded = loadBundle(target);
    expect([loaded.packageName, loaded.channels, loaded.defaultChannel]).toStrictEqual([
      'demo-operator',
      ['stable', 'fast'],
      'fast',
    ]);
    expect(loaded.csv).toStrictEqual(JSON.parse(JSON.stringify(csv)));
    expect(loaded.manifests.map((m) => m.object.kind).sort()).toStrictEqual(
      [
        'ClusterRole',
        'ClusterRoleBinding',
        'ClusterServiceVersion',
        'CustomResourceDefinition',
        'Service',
      ].sort(),
    );
    expect(loaded.dependencies).toStrictEqual([
      { type: 'olm.package', value: { packageName: 'widgets', version: '>=1.0.0' } },
    ]);
    expect(loaded.properties).toStrictEqual([{ type: 'example.com/tier', value: 'gold' }]);
    expect(existsSync(join(target, 'tests/scorecard/config.yaml'))).toBe(true);
    expect(loaded.annotations['operators.operatorframework.io.test.config.v1']).toBe('tests/scorecard/');
  });

  const write = (target: string, extra: Partial<Parameters<typeof writeBundle>[1]> = {}) => {
    const { csv, manifests } = demo();
    return writeBundle(target, {
      packageName: 'demo-operator',
      channels: ['stable'],
      csv,
      objects: manifests,
      scorecardConfig: {
        apiVersion: 'scorecard.operatorframework.io/v1alpha3',
        kind: 'Configuration',
        metadata: { name: 'config' },
      },
      ...extra,
    });
  };

  it('replaces what it wrote in an earlier bundle and leaves the other files alone', async () => {
    const target = join(dir, 'bundle');
    await write(target);
    writeFileSync(join(target, 'manifests/stale.yaml'), 'kind: Stale\n');
    writeFileSync(join(target, 'README.md'), 'notes');
    mkdirSync(join(target, 'tests/e2e'));
    writeFileSync(join(target, 'tests/e2e/run.sh'), 'true');
    await write(target);
    expect(existsSync(join(target, 'manifests/stale.yaml'))).toBe(false);
    expect(readFileSync(join(target, 'README.md'), 'utf8')).toBe('notes');
    expect(readFileSync(join(target, 'tests/e2e/run.sh'), 'utf8')).toBe('true');
    expect(readdirSync(target).sort()).toStrictEqual([
      'README.md',
      'bundle.Dockerfile',
      'manifests',
      'metadata',
      'tests',
    ]);
    expect(readdirSync(dir)).toStrictEqual(['bundle']);
    // A bundle without a scorecard config drops the old one, as it drops an old manifest.
    await write(target, { scorecardConfig: undefined });
    expect(existsSync(join(target, 'tests/scorecard/config.yaml'))).toBe(false);
    expect(existsSync(join(target, 'tests/e2e/run.sh'))).toBe(true);
  });

  it('refuses a non-empty directory that is not a bundle, and writes into it only when forced', async () => {
    const project = join(dir, 'project');
    mkdirSync(join(project, 'src'), { recursive: true });
    writeFileSync(join(project, 'package.json'), '{}');
    writeFileSync(join(project, 'src/main.ts'), 'main()');
    await expect(write(project, { output: { name: '--out', forceFlag: '--force' } })).rejects.toThrow(
      `--out ${project}: not empty and not a bundle (a bundle has metadata/annotations.yaml); name an empty or new directory, or add --force to write only the bundle's own files into it`,
    );
    expect(readdirSync(project).sort()).toStrictEqual(['package.json', 'src']);
    expect(readdirSync(dir)).toStrictEqual(['project']);
    await write(project, { output: { force: true } });
    expect(readdirSync(project).sort()).toStrictEqual([
      'bundle.Dockerfile',
      'manifests',
      'metadata',
      'package.json',
      'src',
      'tests',
    ]);
    expect(readFileSync(join(project, 'src/main.ts'), 'utf8')).toBe('main()');
  });

  it('refuses to write where an input is, or into a directory holding one', async () => {
    const operator = join(dir, 'operator');
    mkdirSync(join(operator, 'config'), { recursive: true });
    const inputs = [{ name: '--operator', path: operator }];
    await expect(write(operator, { output: { name: '--out', inputs } })).rejects.toThrow(
      `--out ${operator}: is --operator ${operator}, an input; write the bundle elsewhere`,
    );
    await expect(write(dir, { output: { name: '--out', inputs } })).rejects.toThrow(
      `--out ${dir}: holds --operator ${operator}, an input; write the bundle elsewhere`,
    );
    await write(join(operator, 'bundle'), { output: { name: '--out', inputs } });
    expect(readdirSync(operator).sort()).toStrictEqual(['bundle', 'config']);
  });

  it('refuses, changing nothing, when a file stands where one of its entries goes', async () => {
    const target = join(dir, 'bundle');
    await write(target);
    const before = readFileSync(join(target, 'metadata/annotations.yaml'), 'utf8');
    rmSync(join(target, 'tests'), { recursive: true });
    writeFileSync(join(target, 'tests'), 'in the way');
    await expect(write(target, { channels: ['alpha'] })).rejects.toThrow(
      `output directory ${target}: ${join(target, 'tests')} is not a directory, where tests/scorecard/config.yaml goes; move it away`,
    );
    expect(readFileSync(join(target, 'metadata/annotations.yaml'), 'utf8')).toBe(before);
    expect(readFileSync(join(target, 'tests'), 'utf8')).toBe('in the way');
    expect(readdirSync(dir)).toStrictEqual(['bundle']);
  });

  it('leaves nothing behind and keeps the old bundle when writing fails', async () => {
    const target = join(dir, 'bundle');
    mkdirSync(target);
    writeFileSync(join(target, 'keep'), 'old');
    const { csv } = demo();
    // A file where the parent directory must go makes mkdir fail.
    const blocked = join(dir, 'file');
    writeFileSync(blocked, '');
    await expect(
      writeBundle(join(blocked, 'bundle'), {
        packageName: 'demo-operator',
        channels: ['stable'],
        csv,
        objects: [],
      }),
    ).rejects.toMatchObject({
      code: 'OLM_BUNDLE_WRITE_FAILED',
    });
    expect(readdirSync(dir).sort()).toStrictEqual(['bundle', 'file']);
    expect(readFileSync(join(target, 'keep'), 'utf8')).toBe('old');
  });

  it('refuses to overwrite when asked not to', async () => {
    mkdirSync(join(dir, 'bundle'));
    const { csv } = demo();
    await expect(
      writeBundle(join(dir, 'bundle'), {
        packageName: 'p',
        channels: ['a'],
        csv,
        objects: [],
        overwrite: false,
      }),
    ).rejects.toThrow(/already exists/);
  });

  it('rejects inconsistent input before touching the disk', async () => {
    const { csv } = demo();
    const job: Manifest = { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'migrate' } };
    await expect(
      writeBundle(join(dir, 'bundle'), {
        packageName: '',
        channels: [],
        defaultChannel: 'x',
        csv,
        objects: [job],
      }),
    ).rejects.toStrictEqual(
      new BundleError(
        'OLM_BUNDLE_INPUT_INVALID',
        'cannot write bundle: packageName must not be empty; channels must be a non-empty list of non-empty names without commas; default channel "x" is not one of the channels; Job "migrate" is not a supported kind for a registry+v1 bundle',
      ),
    );
    expect(readdirSync(dir)).toStrictEqual([]);
  });
});
