import { describe, expect, it } from 'vitest';
import { memcachedCrd } from './crd.js';
import { validateMemcached } from './validate.js';

const valid = {
  apiVersion: 'cache.example.com/v1alpha1',
  kind: 'Memcached',
  metadata: { name: 'm' },
  spec: { size: 2 },
};

describe('validateMemcached (the CRD schema, client-side)', () => {
  it('accepts a minimal and a full spec', () => {
    expect(validateMemcached(valid)).toEqual([]);
    expect(
      validateMemcached({
        ...valid,
        spec: {
          size: 3,
          containerPort: 11311,
          memoryLimitMB: 512,
          maxConnections: 4096,
          threads: 8,
          maxItemSize: '2m',
          extraArgs: ['-v'],
          image: 'registry.example/memcached:1.6',
          resources: { limits: { memory: '600Mi', cpu: 1 }, requests: { cpu: '100m' } },
        },
      }),
    ).toEqual([]);
  });

  it('names the field and the reason of every problem', () => {
    expect(validateMemcached({ ...valid, spec: { size: 0 } })).toEqual([
      { field: 'spec.size', message: 'must be >= 1' },
    ]);
    expect(validateMemcached({ ...valid, spec: { size: 4, memoryLimitMB: -1, maxItemSize: '1g' } })).toEqual([
      { field: 'spec.size', message: 'must be <= 3' },
      { field: 'spec.memoryLimitMB', message: 'must be >= 16' },
      { field: 'spec.maxItemSize', message: 'must match pattern "^[0-9]+(k|m)$"' },
    ]);
    expect(validateMemcached({ ...valid, spec: {} })).toEqual([
      { field: 'spec', message: "must have required property 'size'" },
    ]);
  });

  it('is the schema the CRD carries', () => {
    const schema = memcachedCrd.spec.versions[0]!.schema.openAPIV3Schema as {
      properties: { spec: { properties: { size: object } } };
    };
    expect(schema.properties.spec.properties.size).toStrictEqual({
      format: 'int32',
      minimum: 1,
      maximum: 3,
      description: 'Number of memcached servers (pods).',
      type: 'integer',
    });
  });
});
