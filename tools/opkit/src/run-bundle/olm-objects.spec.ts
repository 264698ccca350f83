import { describe, expect, it } from 'vitest';
import {
  defaultCatalogRepository,
  operatorGroupManifest,
  parseEnv,
  RUN_BUNDLE_LABEL,
  subscriptionManifest,
} from './olm-objects.js';

describe('the objects run bundle creates', () => {
  it('an OperatorGroup for all namespaces has no targets; one for a namespace names it; both labelled', () => {
    const all = operatorGroupManifest('ops', 'memcached-operator', {
      mode: 'AllNamespaces',
      targetNamespaces: [],
    });
    expect(all.spec).toEqual({});
    expect(all.metadata.labels).toEqual({ [RUN_BUNDLE_LABEL]: 'memcached-operator' });
    const own = operatorGroupManifest('ops', 'memcached-operator', {
      mode: 'OwnNamespace',
      targetNamespaces: ['ops'],
    });
    expect(own.spec).toEqual({ targetNamespaces: ['ops'] });
  });

  it('a manually approved Subscription to its own catalog, starting at the bundle, with the env given', () => {
    const sub = subscriptionManifest({
      namespace: 'ops',
      packageName: 'memcached-operator',
      channel: 'alpha',
      startingCSV: 'memcached-operator.v0.1.0',
      env: [{ name: 'RELATED_IMAGE_MEMCACHED', value: 'docker.io/library/memcached:1.6' }],
    });
    expect(sub.metadata).toEqual({
      name: 'memcached-operator',
      namespace: 'ops',
      labels: { [RUN_BUNDLE_LABEL]: 'memcached-operator' },
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
