import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BundleError } from './errors.js';
import { loadBundle, readBundleAnnotations } from './load.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'opkit-load-bundle-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const CSV = `apiVersion: operators.coreos.com/v1alpha1
kind: ClusterServiceVersion
metadata:
  name: demo.v0.1.0
spec:
  displayName: Demo
  version: 0.1.0
  install: {strategy: deployment, spec: {deployments: []}}
`;

const ANNOTATIONS = `annotations:
  operators.operatorframework.io.bundle.mediatype.v1: registry+v1
  operators.operatorframework.io.bundle.manifests.v1: manifests/
  operators.operatorframework.io.bundle.metadata.v1: metadata/
  operators.operatorframework.io.bundle.package.v1: demo
  operators.operatorframework.io.bundle.channels.v1: stable,fast
`;

function files(entries: Record<string, string>): void {
  for (const [path, content] of Object.entries(entries)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
}

function problems(): BundleError['problems'] {
  try {
    loadBundle(dir);
  } catch (error) {
    expect((error as BundleError).code).toBe('OLM_BUNDLE_MALFORMED');
    return (error as BundleError).problems;
  }
  throw new Error('expected loadBundle to fail');
}

describe('loadBundle', () => {
  it('reads a bundle', () => {
    files({ 'manifests/demo.clusterserviceversion.yaml': CSV, 'metadata/annotations.yaml': ANNOTATIONS });
    const bundle = loadBundle(dir);
    expect([
      bundle.packageName,
      bundle.channels,
      bundle.defaultChannel,
      bundle.csv.metadata.name,
    ]).toStrictEqual(['demo', ['stable', 'fast'], undefined, 'demo.v0.1.0']);
    expect(bundle.manifests.map((m) => m.file)).toStrictEqual(['manifests/demo.clusterserviceversion.yaml']);
  });

  it('names the file, line and reason of malformed YAML', () => {
    files({
      'manifests/demo.clusterserviceversion.yaml': CSV,
      'manifests/broken.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n   bad: indent\n',
      'metadata/annotations.yaml': ANNOTATIONS,
    });
    const [problem] = problems();
    expect(problem!.file).toBe('manifests/broken.yaml');
    expect(problem!.reason).toMatch(
      /^malformed YAML at line 4: Nested mappings are not allowed in compact mappings/,
    );
  });

  it('reports unknown kinds, missing fields, hidden files, sub-directories and multi-document files', () => {
    files({
      'manifests/demo.clusterserviceversion.yaml': CSV,
      'manifests/job.yaml': 'apiVersion: batch/v1\nkind: Job\nmetadata: {name: migrate}\n',
      'manifests/nokind.yaml': 'apiVersion: v1\nmetadata: {name: x}\n',
      'manifests/two.yaml':
        'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n',
      'manifests/.DS_Store': 'x',
      'manifests/sub/x.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n',
      'metadata/annotations.yaml': ANNOTATIONS,
    });
    expect(problems()).toStrictEqual([
      { file: 'manifests/.DS_Store', reason: 'hidden files are not allowed in manifests/' },
      {
        file: 'manifests/job.yaml',
        field: 'kind',
        reason: 'Job is not a supported kind for a registry+v1 bundle',
      },
      { file: 'manifests/nokind.yaml', field: 'kind', reason: 'missing or not a string' },
      { file: 'manifests/sub/', reason: 'sub-directories are not allowed in manifests/' },
      { file: 'manifests/two.yaml', reason: '2 YAML documents: a bundle manifest holds exactly one object' },
    ]);
  });

  it('reports missing and wrong annotations by key', () => {
    files({
      'manifests/demo.clusterserviceversion.yaml': CSV,
      'metadata/annotations.yaml': `annotations:
  operators.operatorframework.io.bundle.mediatype.v1: plain
  operators.operatorframework.io.bundle.manifests.v1: manifests/
  operators.operatorframework.io.bundle.metadata.v1: metadata/
  operators.operatorframework.io.bundle.channels.v1: stable
  operators.operatorframework.io.bundle.channel.default.v1: fast
`,
    });
    expect(problems()).toStrictEqual([
      {
        file: 'metadata/annotations.yaml',
        field: 'operators.operatorframework.io.bundle.mediatype.v1',
        reason: 'expected "registry+v1", got "plain"',
      },
      {
        file: 'metadata/annotations.yaml',
        field: 'operators.operatorframework.io.bundle.package.v1',
        reason: 'missing annotation',
      },
    ]);
  });

  it('reads annotations as the Go tools do: scalars as strings, a default channel outside the channels', () => {
    files({
      'manifests/demo.clusterserviceversion.yaml': CSV,
      'metadata/annotations.yaml': `annotations:
  operators.operatorframework.io.bundle.mediatype.v1: registry+v1
  operators.operatorframework.io.bundle.manifests.v1: manifests/
  operators.operatorframework.io.bundle.metadata.v1: metadata/
  operators.operatorframework.io.bundle.package.v1: demo
  operators.operatorframework.io.bundle.channels.v1: stable
  operators.operatorframework.io.bundle.channel.default.v1: fast
  com.redhat.delivery.operator.bundle: true
  com.redhat.openshift.versions: 4.10
  operators.operatorframework.io.metrics.port: 0777
  empty:
`,
    });
    const bundle = loadBundle(dir);
    expect(bundle.defaultChannel).toBe('fast');
    expect(bundle.annotations).toMatchObject({
      'com.redhat.delivery.operator.bundle': 'true',
      'com.redhat.openshift.versions': '4.1',
      'operators.operatorframework.io.metrics.port': '511',
      empty: '',
    });
  });

  it('names the file and the Go type error when an annotation is not a scalar', () => {
    files({
      'manifests/demo.clusterserviceversion.yaml': CSV,
      'metadata/annotations.yaml': 'annotations:\n  nested: {a: b}\n',
    });
    expect(problems()).toStrictEqual([
      {
        file: 'metadata/annotations.yaml',
        reason:
          'json: cannot unmarshal object into Go struct field AnnotationMetadata.annotations of type string',
      },
    ]);
  });

  it("reads a quoted scalar continued at its key's indentation, as go-yaml does", () => {
    files({
      'manifests/demo.clusterserviceversion.yaml': CSV.replace(
        'spec:\n',
        'spec:\n  description: "a long description that\n  continues"\n',
      ),
      'metadata/annotations.yaml': ANNOTATIONS,
    });
    expect(loadBundle(dir).csv.spec.description).toBe('a long description that continues');
  });

  it('reports a missing annotations file, a missing CSV and a bad CSV version', () => {
    files({
      'manifests/crd.yaml':
        'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: a.b.c}\n',
      'metadata/x.txt': '',
    });
    expect(problems()).toStrictEqual([
      { file: 'manifests/', reason: 'no ClusterServiceVersion found' },
      { file: 'metadata/annotations.yaml', reason: 'missing: a bundle needs metadata/annotations.yaml' },
    ]);
    rmSync(join(dir, 'manifests/crd.yaml'));
    files({
      'manifests/demo.clusterserviceversion.yaml': CSV.replace('version: 0.1.0', 'version: one.two'),
      'metadata/annotations.yaml': ANNOTATIONS,
    });
    expect(problems()).toStrictEqual([
      {
        file: 'manifests/demo.clusterserviceversion.yaml',
        field: 'spec.version',
        reason: '"one.two" is not a semantic version',
      },
    ]);
  });

  it('reports missing manifests/ and metadata/ directories', () => {
    expect(problems()).toStrictEqual([
      { file: 'manifests/', reason: 'missing directory: a bundle needs manifests/' },
      { file: 'metadata/', reason: 'missing directory: a bundle needs metadata/' },
    ]);
  });

  it('refuses, by name, a FIFO, a link to /dev/zero and links out of the bundle, reading none of them', () => {
    files({ 'manifests/demo.clusterserviceversion.yaml': CSV, 'metadata/annotations.yaml': ANNOTATIONS });
    const outside = mkdtempSync(join(tmpdir(), 'opkit-load-bundle-outside-'));
    try {
      writeFileSync(join(outside, 'secret.yaml'), CSV.replace('demo.v0.1.0', 'host-secret'));
      execFileSync('mkfifo', [join(dir, 'manifests', 'fifo.yaml')]);
      symlinkSync('/dev/zero', join(dir, 'manifests', 'zero.yaml'));
      symlinkSync(join(outside, 'secret.yaml'), join(dir, 'manifests', 'secret.yaml'));
      symlinkSync(outside, join(dir, 'metadata', 'host'));
      expect(problems()).toStrictEqual([
        { file: 'manifests/fifo.yaml', reason: 'not a regular file but a FIFO' },
        { file: 'manifests/secret.yaml', reason: 'a symlink on its path leads out of the directory' },
        { file: 'manifests/zero.yaml', reason: 'a symlink on its path leads out of the directory' },
      ]);
      rmSync(join(dir, 'manifests'), { recursive: true });
      symlinkSync(outside, join(dir, 'manifests'));
      expect(problems()).toStrictEqual([
        { file: 'manifests/', reason: 'a symlink that leads out of the bundle directory' },
      ]);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('formats every problem into the error message', () => {
    files({
      'manifests/demo.clusterserviceversion.yaml': CSV,
      'metadata/annotations.yaml': 'annotations: {}\n',
    });
    expect(() => loadBundle(dir)).toThrow(
      /manifests: \n?|metadata\/annotations\.yaml: operators\.operatorframework\.io\.bundle\.mediatype\.v1: missing annotation/,
    );
  });
});

describe('readBundleAnnotations', () => {
  it('reads the annotations alone, as loadBundle reads them, manifests unread', () => {
    files({ 'metadata/annotations.yaml': ANNOTATIONS });
    expect(readBundleAnnotations(dir)).toStrictEqual({
      'operators.operatorframework.io.bundle.mediatype.v1': 'registry+v1',
      'operators.operatorframework.io.bundle.manifests.v1': 'manifests/',
      'operators.operatorframework.io.bundle.metadata.v1': 'metadata/',
      'operators.operatorframework.io.bundle.package.v1': 'demo',
      'operators.operatorframework.io.bundle.channels.v1': 'stable,fast',
    });
  });

  it('refuses a bundle without its annotations file, naming it', () => {
    files({ 'manifests/demo.clusterserviceversion.yaml': CSV });
    expect(() => readBundleAnnotations(dir)).toThrow(
      expect.objectContaining({
        code: 'OLM_BUNDLE_MALFORMED',
        problems: [
          { file: 'metadata/annotations.yaml', reason: 'missing: a bundle needs metadata/annotations.yaml' },
        ],
      }),
    );
  });
});
