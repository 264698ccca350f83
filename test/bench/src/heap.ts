import { setImmediate as nextTurn } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let collect: (() => void) | undefined;

/**
 * The V8 garbage collector: `globalThis.gc` when Node runs with `--expose-gc`, otherwise exposed at runtime
 * (V8 honours the flag for contexts created afterwards).
 */
export function garbageCollector(): () => void {
  if (collect) return collect;
  const exposed = globalThis.gc;
  if (typeof exposed === 'function') {
    collect = () => exposed();
    return collect;
  }
  setFlagsFromString('--expose-gc');
  const fromContext: unknown = runInNewContext('gc');
  if (typeof fromContext !== 'function')
    throw new Error('cannot reach the garbage collector: run node with --expose-gc');
  collect = () => (fromContext as () => void)();
  return collect;
}

/** Heap in use after full collections (twice, with a turn of the event loop between for finalizers). */
export async function settledHeapUsed(): Promise<number> {
  const gc = garbageCollector();
  gc();
  await nextTurn();
  gc();
  return process.memoryUsage().heapUsed;
}
