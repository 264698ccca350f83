import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { isAlreadyExists, type KubeObject } from '@opkit/controller-runtime';
import type { DirectClient } from '@opkit/controller-runtime/client';

export const CONFIG_MAP = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
export const FIELD_MANAGER = 'opkit-bench';

export interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

/** Data keys per ConfigMap; each value is 40 characters. */
export const DATA_KEYS = 10;

/** A ConfigMap of typical size: 10 data keys of 40 bytes (distinct per object) and four labels. */
export function benchConfigMap(namespace: string, index: number): ConfigMap {
  const data: Record<string, string> = {};
  for (let k = 0; k < DATA_KEYS; k++) {
    data[`key-${String(k).padStart(2, '0')}`] = createHash('sha1')
      .update(`${namespace}/${index}/${k}`)
      .digest('hex');
  }
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: `cm-${String(index).padStart(5, '0')}`,
      namespace,
      labels: {
        'app.kubernetes.io/name': 'opkit-bench',
        'app.kubernetes.io/component': 'cache-benchmark',
        'bench.opkit.dev/shard': String(index % 32),
        'bench.opkit.dev/index': String(index),
      },
    },
    data,
  };
}

export async function createNamespace(client: DirectClient, name: string): Promise<void> {
  try {
    await client.create(
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
      { fieldManager: FIELD_MANAGER },
    );
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
  }
}

/** Creates ConfigMaps `from` … `from + count - 1` with `concurrency` requests in flight; stops at the first error. */
export async function createConfigMaps(
  client: DirectClient,
  namespace: string,
  from: number,
  count: number,
  concurrency: number,
): Promise<{ created: number; elapsedMs: number }> {
  const started = performance.now();
  let next = from;
  let failed = false;
  const worker = async (): Promise<void> => {
    while (!failed && next < from + count) {
      const index = next++;
      try {
        await client.create(benchConfigMap(namespace, index), { fieldManager: FIELD_MANAGER });
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { created: count, elapsedMs: performance.now() - started };
}
