import { quantityCeil } from '@opkit/controller-runtime';
import { DEFAULTS, type MemcachedSpec } from './types.js';

const MI = 1024n * 1024n;

/**
 * Worker threads when the spec names none: one per CPU of the container's limit (rounded up), at most
 * memcached's own default of 4; 4 without a CPU limit. Conditional on another field, so no schema default
 * can say it: the defaulting webhook writes it into the object, and the controller uses the same rule for
 * objects that never passed the webhook.
 */
export function defaultThreads(spec: MemcachedSpec): number {
  const cpu = spec.resources?.limits?.cpu;
  const cores = cpu === undefined ? undefined : quantityCeil(cpu);
  if (cores === undefined) return DEFAULTS.threads;
  return Number(cores < 1n ? 1n : cores > BigInt(DEFAULTS.threads) ? BigInt(DEFAULTS.threads) : cores);
}

/** The item memory in whole megabytes as memcached's `-m` counts them (MiB), rounded up. */
export function memoryMegabytes(memory: string | number): number | undefined {
  const bytes = quantityCeil(memory);
  return bytes === undefined ? undefined : Number((bytes + MI - 1n) / MI);
}
