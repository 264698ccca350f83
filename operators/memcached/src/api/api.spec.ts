import { prng } from '@opkit/controller-runtime/testing';
import {
  type AdmissionRequest,
  applyJsonPatch,
  defaultingHandler,
  type JsonPatchOperation,
} from '@opkit/controller-runtime/webhook';
import { describe, expect, it } from 'vitest';
import { memcachedCrd } from './memcached-crd.js';
import * as v1alpha1 from './v1alpha1/memcached.js';
import { STASH_ANNOTATION, v1alpha1Spoke } from './v1alpha1/memcached-conversion.js';
import { type Memcached, validateMemcached } from './v1beta1/memcached.js';
import { memcachedDefaulter, memcachedValidator } from './v1beta1/memcached-webhooks.js';

const meta = { name: 'm', namespace: 'ns', uid: 'u-1', resourceVersion: '9' };
const beta = (spec: Memcached['spec']): Memcached => ({
  apiVersion: 'cache.example.com/v1beta1',
  kind: 'Memcached',
  metadata: { ...meta },
  spec,
});
const alpha = (spec: v1alpha1.Memcached['spec']): v1alpha1.Memcached => ({
  apiVersion: 'cache.example.com/v1alpha1',
  kind: 'Memcached',
  metadata: { ...meta },
  spec,
});

describe('the CRD', () => {
  it('stores v1beta1 and serves v1alpha1 deprecated, each with the schema of its version', () => {
    const versions = memcachedCrd.spec.versions.map((v) => ({
      name: v.name,
      served: v.served,
      storage: v.storage,
      deprecated: 'deprecated' in v,
    }));
    expect(versions).toEqual([
      { name: 'v1alpha1', served: true, storage: false, deprecated: true },
      { name: 'v1beta1', served: true, storage: true, deprecated: false },
    ]);
    const schema = memcachedCrd.spec.versions[1]?.schema.openAPIV3Schema as {
      properties: { spec: { properties: { replicas: object } } };
    };
    expect(schema.properties.spec.properties.replicas).toStrictEqual({
      format: 'int32',
      minimum: 1,
      maximum: 3,
      description: 'Number of memcached servers (pods).',
      type: 'integer',
    });
  });
});

describe('validation from the schema', () => {
  it('names the field and the reason of every problem, at both versions', () => {
    expect(validateMemcached(beta({ replicas: 2, memory: '1Gi', port: { containerPort: 11311 } }))).toEqual(
      [],
    );
    expect(validateMemcached(beta({ replicas: 4, memory: 'lots' }))).toEqual([
      { field: 'spec.replicas', message: 'must be <= 3' },
      { field: 'spec.memory', message: expect.stringContaining('must match pattern') },
    ]);
    expect(v1alpha1.validateMemcached(alpha({ size: 0 }))).toEqual([
      { field: 'spec.size', message: 'must be >= 1' },
    ]);
  });
});

describe('conversion v1alpha1 ⇄ v1beta1', () => {
  const { toHub, fromHub } = v1alpha1Spoke;

  it('renames and reshapes the fields', () => {
    expect(toHub(alpha({ size: 2, containerPort: 11311, memoryLimitMB: 128, threads: 2 })).spec).toEqual({
      replicas: 2,
      port: { containerPort: 11311 },
      memory: '128Mi',
      threads: 2,
    });
    const down = fromHub(beta({ replicas: 3, memory: '1Gi', port: {} }));
    expect(down.spec).toEqual({ size: 3, memoryLimitMB: 1024 });
    expect(down.metadata.annotations).toEqual({ [STASH_ANNOTATION]: '{"memory":"1Gi"}' });
    expect(toHub(down).spec).toEqual({ replicas: 3, memory: '1Gi' });
  });

  it('takes the megabytes when they were changed at v1alpha1 after a round trip', () => {
    const down = fromHub(beta({ replicas: 1, memory: '1Gi' }));
    expect(toHub({ ...down, spec: { ...down.spec, memoryLimitMB: 512 } }).spec.memory).toBe('512Mi');
  });

  it('loses nothing on round trips through either version (seeded, 1,000 objects each way)', () => {
    const seed = Number(process.env.OPKIT_PROPERTY_SEED ?? 20261123);
    const random = prng(seed);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
    const maybe = <T>(value: T): T | undefined => (random() < 0.5 ? value : undefined);
    const clean = <T extends object>(o: T): T => JSON.parse(JSON.stringify(o));
    const resources = () =>
      maybe({ limits: { cpu: pick(['1', '500m', 2]), memory: pick(['256Mi', '1Gi', '300M']) } });
    for (let i = 0; i < Number(process.env.OPKIT_PROPERTY_CASES ?? 1_000); i++) {
      const b = clean(
        beta({
          replicas: 1 + Math.floor(random() * 3),
          port: maybe({ containerPort: pick([11211, 1, 65535]) }),
          memory: maybe(pick(['64Mi', '1Gi', '100M', '1G', 67108864, '1.5Gi', '16Mi', '0.5Gi'])),
          maxConnections: maybe(pick([1, 1024])),
          threads: maybe(pick([1, 4, 128])),
          maxItemSize: maybe('2m'),
          extraArgs: maybe(['-v']),
          image: maybe('memcached:1.6'),
          resources: resources(),
        }),
      );
      expect(clean(toHub(clean(fromHub(structuredClone(b))))), `seed ${seed}, case ${i}`).toEqual(b);
      const a = clean(
        alpha({
          size: 1 + Math.floor(random() * 3),
          containerPort: maybe(pick([11211, 1])),
          memoryLimitMB: maybe(pick([16, 64, 1000, 65536])),
          threads: maybe(pick([1, 4])),
          extraArgs: maybe(['-v']),
          resources: resources(),
        }),
      );
      expect(clean(fromHub(clean(toHub(structuredClone(a))))), `seed ${seed}, case ${i}`).toEqual(a);
    }
  });
});

describe('the defaulting and validating webhooks', () => {
  it('defaults threads from the CPU limit', async () => {
    const handler = defaultingHandler(memcachedDefaulter, validateMemcached);
    const review = (spec: Memcached['spec']) => ({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: {
        uid: 'x',
        kind: { group: 'cache.example.com', version: 'v1beta1', kind: 'Memcached' },
        operation: 'CREATE',
        object: beta(spec),
      },
    });
    const threads = async (spec: Memcached['spec']) => {
      const patch = (await handler(review(spec))).response?.patch;
      const ops = JSON.parse(Buffer.from(patch ?? 'W10=', 'base64').toString()) as JsonPatchOperation[];
      return (applyJsonPatch(beta(spec), ops) as Memcached).spec.threads;
    };
    expect(await threads({ replicas: 1 })).toBe(4);
    expect(await threads({ replicas: 1, resources: { limits: { cpu: '1500m' } } })).toBe(2);
    expect(await threads({ replicas: 1, resources: { limits: { cpu: '100m' } } })).toBe(1);
    expect(await threads({ replicas: 1, resources: { limits: { cpu: 16 } } })).toBe(4);
    expect(await threads({ replicas: 1, threads: 9 })).toBe(9);
  });

  it('refuses item memory that does not fit the container and requests above limits, and warns about overriding flags', async () => {
    const request: AdmissionRequest<Memcached> = {
      uid: 'x',
      kind: { group: 'cache.example.com', version: 'v1beta1', kind: 'Memcached' },
      operation: 'CREATE',
    };
    const { validateCreate, validateUpdate } = memcachedValidator;
    const fits = beta({ replicas: 1, memory: '200Mi', resources: { limits: { memory: '256Mi' } } });
    expect(await validateCreate?.(fits, request)).toEqual([]);
    expect(() =>
      validateCreate?.(
        beta({ replicas: 1, memory: '240Mi', resources: { limits: { memory: '256Mi' } } }),
        request,
      ),
    ).toThrow(
      'Memcached.cache.example.com "m" is invalid: spec.memory: Invalid value: "240Mi": with 32Mi for connections it must fit in resources.limits.memory (256Mi)',
    );
    expect(() => validateCreate?.(beta({ replicas: 1, memory: '8Mi' }), request)).toThrow(
      'must be from 16Mi to 64Gi',
    );
    // The pod would refuse it: the operator could never roll the Deployment out.
    expect(() =>
      validateCreate?.(
        beta({ replicas: 1, resources: { limits: { cpu: '100m' }, requests: { cpu: 8 } } }),
        request,
      ),
    ).toThrow('spec.resources.requests.cpu: Invalid value: 8: must be at most resources.limits.cpu (100m)');
    expect(
      await validateCreate?.(
        beta({
          replicas: 1,
          resources: { limits: { cpu: '0.5' }, requests: { cpu: '500m', memory: '1Gi' } },
        }),
        request,
      ),
    ).toEqual([]);
    expect(
      await validateCreate?.(beta({ replicas: 1, extraArgs: ['-m', '128', '-v', '--threads=2'] }), request),
    ).toEqual(["spec.extraArgs -m --threads=2 override what the spec's own fields set"]);
    expect(await validateUpdate?.(fits, beta({ ...fits.spec, port: { containerPort: 1 } }), request)).toEqual(
      ['changing spec.port restarts every memcached server'],
    );
  });
});
