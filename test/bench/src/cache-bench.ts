import { performance } from 'node:perf_hooks';
import type { KubeObject, Stored } from '@opkit/controller-runtime';
import { newCache } from '@opkit/controller-runtime/cache';
import type { DirectClient } from '@opkit/controller-runtime/client';
import { CONFIG_MAP } from './fixtures.js';
import { settledHeapUsed } from './heap.js';
import { withTimeout } from './stats.js';

/** `stripManagedFields`: the cache's default transform. `identity`: objects cached exactly as listed. */
export type TransformKind = 'stripManagedFields' | 'identity';

export interface InformerRun {
  readonly transform: TransformKind;
  /** Objects in the informer's store once synced. */
  readonly objects: number;
  /** From starting the cache until the ConfigMap informer has listed every page and synced. */
  readonly syncMs: number;
  readonly objectsPerSecond: number;
  /** Heap figures; only when the run measured the heap. */
  readonly heap?: {
    readonly beforeBytes: number;
    readonly afterBytes: number;
    readonly deltaBytes: number;
    readonly bytesPerObject: number;
    readonly kibPer1000Objects: number;
    /** Average size of one cached object serialised as JSON, for scale. */
    readonly jsonBytesPerObject: number;
  };
}

/**
 * Starts a fresh informer cache for ConfigMaps in `namespace` (paginated list, 500 per page, then a watch),
 * waits for it to sync and stops it again. With `measureHeap`, the settled heap is taken before the cache is
 * created and after it synced, while the informer and its store are still alive.
 */
export async function informerRun(options: {
  readonly client: DirectClient;
  readonly namespace: string;
  readonly transform: TransformKind;
  readonly measureHeap: boolean;
  readonly timeoutMs: number;
}): Promise<InformerRun> {
  const { client, namespace, transform } = options;
  const errors: Error[] = [];
  const beforeBytes = options.measureHeap ? await settledHeapUsed() : 0;

  const started = performance.now();
  const cache = newCache({
    client,
    namespaces: [namespace],
    ...(transform === 'identity' ? { defaultTransform: (obj: Stored<KubeObject>) => obj } : {}),
    onError: (error) => errors.push(error),
  });
  const stop = new AbortController();
  try {
    cache.start(stop.signal);
    const informer = await cache.informerFor(CONFIG_MAP);
    await withTimeout(informer.waitForSync(), options.timeoutMs, `ConfigMap informer sync in ${namespace}`);
    const syncMs = performance.now() - started;
    if (errors.length > 0) throw new Error(`informer failed during sync: ${errors[0]!.message}`);
    const objects = informer.store.size;

    let heap: InformerRun['heap'];
    if (options.measureHeap) {
      const afterBytes = await settledHeapUsed();
      let jsonBytes = 0;
      for (const obj of informer.store.values()) jsonBytes += Buffer.byteLength(JSON.stringify(obj));
      const deltaBytes = afterBytes - beforeBytes;
      heap = {
        beforeBytes,
        afterBytes,
        deltaBytes,
        // NaN (null in JSON) for an empty store.
        bytesPerObject: objects > 0 ? deltaBytes / objects : Number.NaN,
        kibPer1000Objects: objects > 0 ? (deltaBytes / objects) * (1000 / 1024) : Number.NaN,
        jsonBytesPerObject: objects > 0 ? jsonBytes / objects : Number.NaN,
      };
    }
    return {
      transform,
      objects,
      syncMs,
      objectsPerSecond: objects / (syncMs / 1000),
      ...(heap ? { heap } : {}),
    };
  } finally {
    stop.abort();
    await cache.stopped();
  }
}
