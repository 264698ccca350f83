import { compareQuantities, quantityCeil } from '@opkit/controller-runtime/controllerutil';
import {
  type Defaulter,
  type FieldProblem,
  invalidObject,
  type KindWebhooks,
  type Validator,
  type Warnings,
} from '@opkit/controller-runtime/webhook';
import { v1alpha1Spoke } from '../v1alpha1/memcached-conversion.js';
import {
  DEFAULTS,
  defaultThreads,
  MEMCACHED,
  type Memcached,
  type MemcachedSpec,
  PLURAL,
  validateMemcached,
} from './memcached.js';

const MI = 1024n * 1024n;
/** memcached's connection and hash-table buffers, on top of the item memory, inside the container. */
export const MEMORY_OVERHEAD_MI = 32n;
const MEMORY_MIN_MI = 16n;
const MEMORY_MAX_MI = 65536n;

/** Sets what the schema cannot default. */
export const memcachedDefaulter: Defaulter<Memcached> = (memcached) => {
  memcached.spec.threads ??= defaultThreads(memcached.spec);
};

/** Flags the operator sets from spec fields; setting them again in `extraArgs` overrides the field. */
const OWNED_FLAGS = [
  '-p',
  '--port',
  '-m',
  '--memory-limit',
  '-c',
  '--conn-limit',
  '-t',
  '--threads',
  '-I',
  '--max-item-size',
];

function problems(spec: MemcachedSpec): FieldProblem[] {
  const found: FieldProblem[] = [];
  const memory = spec.memory ?? DEFAULTS.memory;
  const bytes = quantityCeil(memory);
  if (bytes === undefined) return found; // not a quantity: the schema's pattern refuses it
  if (bytes < MEMORY_MIN_MI * MI || bytes > MEMORY_MAX_MI * MI) {
    found.push({ field: 'spec.memory', value: memory, message: 'must be from 16Mi to 64Gi' });
  }
  const limit = spec.resources?.limits?.memory;
  const limitBytes = limit === undefined ? undefined : quantityCeil(limit);
  if (limitBytes !== undefined && bytes + MEMORY_OVERHEAD_MI * MI > limitBytes) {
    found.push({
      field: 'spec.memory',
      value: memory,
      message: `with ${MEMORY_OVERHEAD_MI}Mi for connections it must fit in resources.limits.memory (${limit})`,
    });
  }
  // The pod's own rule, checked here: a request above its limit would be accepted and never run.
  for (const [name, request] of Object.entries(spec.resources?.requests ?? {})) {
    const limit = spec.resources?.limits?.[name];
    if (limit !== undefined && compareQuantities(request, limit) === 1) {
      found.push({
        field: `spec.resources.requests.${name}`,
        value: request,
        message: `must be at most resources.limits.${name} (${limit})`,
      });
    }
  }
  return found;
}

function warnings(spec: MemcachedSpec): string[] {
  const overriding = (spec.extraArgs ?? []).filter((arg) =>
    OWNED_FLAGS.some((flag) => arg === flag || arg.startsWith(`${flag}=`)),
  );
  return overriding.length > 0
    ? [`spec.extraArgs ${overriding.join(' ')} override what the spec's own fields set`]
    : [];
}

/** Rules across fields that need quantity arithmetic, and warnings for surprising but valid specs. */
export const memcachedValidator: Validator<Memcached> = {
  validateCreate(memcached): Warnings {
    const found = problems(memcached.spec);
    if (found.length > 0) throw invalidObject(memcached, found);
    return warnings(memcached.spec);
  },
  validateUpdate(old, memcached): Warnings {
    const found = problems(memcached.spec);
    if (found.length > 0) throw invalidObject(memcached, found);
    const port = (m: Memcached) => m.spec.port?.containerPort ?? DEFAULTS.containerPort;
    return [
      ...warnings(memcached.spec),
      ...(port(old) !== port(memcached) ? ['changing spec.port restarts every memcached server'] : []),
    ];
  },
};

/**
 * The Memcached webhooks: defaulting and validating at v1beta1, and conversion between v1alpha1 and v1beta1
 * (the hub), without which the API server cannot serve v1alpha1. The operator registers this declaration and
 * `nx run memcached:manifests` generates `config/webhook` and the CRD's conversion patch from it.
 */
export const memcachedWebhooks: KindWebhooks<Memcached> = {
  type: MEMCACHED,
  plural: PLURAL,
  schema: validateMemcached,
  defaulter: memcachedDefaulter,
  validator: memcachedValidator,
  conversion: { hub: 'v1beta1', spokes: { v1alpha1: v1alpha1Spoke } },
};
