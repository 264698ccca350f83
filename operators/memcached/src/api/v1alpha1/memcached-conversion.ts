import { type Spoke, stashFields, takeStashedFields } from '@opkit/controller-runtime/webhook';
import {
  type Memcached as Hub,
  type MemcachedSpec as HubSpec,
  memoryMegabytes as megabytes,
} from '../v1beta1/memcached.js';
import type { Memcached, MemcachedSpec } from './memcached.js';

/** Where a v1alpha1 object keeps what v1beta1 says and v1alpha1 cannot (the memory's own spelling). */
export const STASH_ANNOTATION = 'cache.example.com/v1beta1-fields';

/** Drops keys whose value is undefined, so converted objects hold only the fields that are set. */
function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/** The fields both versions have, unchanged. */
function sameInBoth(s: MemcachedSpec | HubSpec) {
  const { maxConnections, threads, maxItemSize, extraArgs, image, resources } = s;
  return { maxConnections, threads, maxItemSize, extraArgs, image, resources };
}

function specToHub(s: MemcachedSpec, stashed: Record<string, unknown> | undefined): HubSpec {
  const kept = stashed?.memory;
  // The spelling v1beta1 had (`1Gi`, `100M`) comes back unless the megabytes were changed at v1alpha1.
  const memory =
    s.memoryLimitMB === undefined
      ? undefined
      : (typeof kept === 'string' || typeof kept === 'number') && megabytes(kept) === s.memoryLimitMB
        ? kept
        : `${s.memoryLimitMB}Mi`;
  return defined({
    replicas: s.size,
    port: s.containerPort === undefined ? undefined : { containerPort: s.containerPort },
    memory,
    ...sameInBoth(s),
  });
}

function specFromHub(s: HubSpec): { spec: MemcachedSpec; stash: Record<string, unknown> } {
  const memoryLimitMB = s.memory === undefined ? undefined : megabytes(s.memory);
  const spec = defined({
    size: s.replicas,
    containerPort: s.port?.containerPort,
    memoryLimitMB,
    ...sameInBoth(s),
  });
  const exact = s.memory === undefined || String(s.memory) === `${memoryLimitMB}Mi`;
  return { spec, stash: { memory: exact ? undefined : s.memory } };
}

/**
 * v1alpha1 ⇄ v1beta1: `size` ⇄ `replicas`, `containerPort` ⇄ `port.containerPort`, `memoryLimitMB` ⇄ `memory`.
 * Lossless both ways: a v1beta1 memory that is no whole number of Mi (`1G`, `100M`) or spelled otherwise
 * (`1Gi`) travels through v1alpha1 in an annotation and comes back as it was.
 */
export const v1alpha1Spoke: Spoke<Memcached, Hub> = {
  toHub(obj) {
    const stashed = takeStashedFields(obj, STASH_ANNOTATION);
    return { ...obj, spec: specToHub(obj.spec, stashed) } as Hub;
  },
  fromHub(hub) {
    const { spec, stash } = specFromHub(hub.spec);
    const out: Memcached = { ...hub, spec } as Memcached;
    stashFields(out, STASH_ANNOTATION, stash);
    return out;
  },
};
