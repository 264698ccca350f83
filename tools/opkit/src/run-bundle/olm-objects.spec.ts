import { describe, expect, it } from 'vitest';
import {
  adoptionConflict,
  type CatalogSourceObject,
  createdForPackage,
  defaultCatalogRepository,
  operatorGroupManifest,
  parseEnv,
  RUN_BUNDLE_LABEL,
  RUN_BUNDLE_RUN_ANNOTATION,
  type RunMark,
  runMarkOf,
  runMetadata,
  subscriptionManifest,
} from './olm-objects.js';

const MARK: RunMark = { package: 'memcached-operator', namespace: 'ops', run: 'r1' };
const RUN = JSON.stringify({ package: 'memcached-operator', namespace: 'ops', run: 'r1' });

describe('the objects run bundle creates', () => {
  it('an OperatorGroup for all namespaces has no targets; one for a namespace names it; both marked', () => {
    const all = operatorGroupManifest(MARK, { mode: 'AllNamespaces', targetNamespaces: [] });
    expect(all.spec).toEqual({});
    expect(all.metadata.labels).toEqual({ [RUN_BUNDLE_LABEL]: 'memcached-operator' });
    expect(all.metadata.annotations).toEqual({ [RUN_BUNDLE_RUN_ANNOTATION]: RUN });
    expect(runMarkOf(all)).toEqual(MARK);
    const own = operatorGroupManifest(MARK, {
      mode: 'OwnNamespace',
      targetNamespaces: ['ops'],
    });
    expect(own.spec).toEqual({ targetNamespaces: ['ops'] });
  });

  it('a manually approved Subscription to its own catalog, starting at the bundle, with the env given', () => {
    const sub = subscriptionManifest({
      mark: MARK,
      channel: 'alpha',
      startingCSV: 'memcached-operator.v0.1.0',
      env: [{ name: 'RELATED_IMAGE_MEMCACHED', value: 'docker.io/library/memcached:1.6' }],
    });
    expect(sub.metadata).toEqual({
      name: 'memcached-operator',
      namespace: 'ops',
      labels: { [RUN_BUNDLE_LABEL]: 'memcached-operator' },
      annotations: { [RUN_BUNDLE_RUN_ANNOTATION]: RUN },
    });
    expect(sub.spec).toEqual({
      channel: 'alpha',
      name: 'memcached-operator',
      source: 'memcached-operator-catalog',
      sourceNamespace: 'ops',
      installPlanApproval: 'Manual',
      startingCSV: 'memcached-operator.v0.1.0',
      config: { env: [{ name: 'RELATED_IMAGE_MEMCACHED', value: 'docker.io/library/memcached:1.6' }] },
    });
  });
});

describe('the run mark', () => {
  const source = (metadata: CatalogSourceObject['metadata']): CatalogSourceObject => ({
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'CatalogSource',
    metadata,
    spec: {},
  });
  const marked = { name: 'memcached-operator-catalog', namespace: 'ops', ...runMetadata(MARK) };

  it('is both the label and the annotation, naming the namespace the object is in', () => {
    expect(createdForPackage(source(marked), 'memcached-operator')).toBe(true);
    expect(createdForPackage(source(marked), 'other-operator')).toBe(false);
    // The label alone, as an earlier opkit or a copied manifest leaves it, proves nothing.
    expect(runMarkOf(source({ ...marked, annotations: {} }))).toBeUndefined();
    expect(runMarkOf(source({ ...marked, labels: {} }))).toBeUndefined();
    // Copied to another namespace, or label and annotation disagreeing, or a malformed annotation.
    expect(runMarkOf(source({ ...marked, namespace: 'elsewhere' }))).toBeUndefined();
    expect(
      runMarkOf(source({ ...marked, labels: { [RUN_BUNDLE_LABEL]: 'other-operator' } })),
    ).toBeUndefined();
    for (const bad of ['{', '"x"', 'null', JSON.stringify({ ...MARK, run: '' })]) {
      expect(runMarkOf(source({ ...marked, annotations: { [RUN_BUNDLE_RUN_ANNOTATION]: bad } })), bad).toBe(
        undefined,
      );
    }
  });

  it('lets run bundle take up only what a run for the package created', () => {
    expect(adoptionConflict(undefined, 'memcached-operator')).toBeUndefined();
    expect(adoptionConflict(source(marked), 'memcached-operator')).toBeUndefined();
    expect(
      adoptionConflict(
        source({ name: 'memcached-operator-catalog', namespace: 'ops' }),
        'memcached-operator',
      ),
    ).toBe(
      "CatalogSource ops/memcached-operator-catalog already exists and was not created by 'opkit run bundle' for package memcached-operator: it is left as it is; remove or rename it, or choose another --namespace",
    );
    expect(adoptionConflict(source(marked), 'other-operator')).toMatch(
      /^CatalogSource ops\/memcached-operator-catalog already exists/,
    );
  });
});

describe('option parsing', () => {
  it('reads --env NAME=VALUE, values may hold =', () => {
    expect(parseEnv(['A=1', 'B_2=x=y', 'EMPTY='])).toEqual([
      { name: 'A', value: '1' },
      { name: 'B_2', value: 'x=y' },
      { name: 'EMPTY', value: '' },
    ]);
    expect(() => parseEnv(['NOVALUE'])).toThrow('--env "NOVALUE": expected NAME=VALUE');
    expect(() => parseEnv(['1A=x'])).toThrow('--env "1A=x": expected NAME=VALUE');
    expect(() => parseEnv(['A=1', 'A=2'])).toThrow('--env A is given twice');
  });

  it('puts the catalog beside the bundle repository by default', () => {
    expect(
      defaultCatalogRepository('quay.io/acme/memcached-operator-bundle:v0.1.0', 'memcached-operator'),
    ).toBe('quay.io/acme/memcached-operator-catalog');
    expect(
      defaultCatalogRepository(
        `127.0.0.1:5000/opkit/x-bundle@sha256:${'0'.repeat(64)}`,
        'memcached-operator',
      ),
    ).toBe('127.0.0.1:5000/opkit/memcached-operator-catalog');
    expect(defaultCatalogRepository('localhost:5000/bundle', 'p')).toBe('localhost:5000/p-catalog');
  });
});
