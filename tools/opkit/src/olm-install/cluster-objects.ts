// The installer's calls to the cluster, over the runtime's client: an object whose kind is not served (OLM's,
// before its CRDs are installed or after they are deleted) is one that does not exist.
import type { Kind, KubeObject, Stored } from '@opkit/controller-runtime';
import { NoKindMatchError, type ObjectClient } from '@opkit/controller-runtime/client';
import { isAbsent as absent, type ObjectHeader, refOf } from '../kube-connection.js';

/** The calls an install makes, those of the runtime's client; tests give a fake in memory. */
export type KubeApi = Pick<ObjectClient, 'get' | 'list' | 'create' | 'delete'>;

/** The object as the cluster holds it; undefined when it, or its kind, does not exist. */
export async function read(api: KubeApi, object: ObjectHeader): Promise<Stored<KubeObject> | undefined> {
  try {
    return await api.get(object, object.metadata.name, object.metadata.namespace);
  } catch (error) {
    if (absent(error)) return undefined;
    throw error;
  }
}

/** The objects of a kind in a namespace, or across all with none; none when the kind is not served. */
export async function list(api: KubeApi, type: Kind, namespace?: string): Promise<Stored<KubeObject>[]> {
  try {
    return (await api.list(type, namespace === undefined ? {} : { namespace })).items;
  } catch (error) {
    if (absent(error)) return [];
    throw error;
  }
}

/** Deletes in the background (dependents too); false when it was already gone. */
export async function remove(api: KubeApi, object: ObjectHeader): Promise<boolean> {
  try {
    await api.delete(refOf(object), { propagationPolicy: 'Background' });
    return true;
  } catch (error) {
    if (absent(error)) return false;
    throw error;
  }
}

/** How soon a kind that discovery does not show yet is looked for again. */
const DISCOVERY_RETRY_MS = 200;

/**
 * Creates `object`. Discovery lists a CRD's kind a moment after the CRD is established, so a kind it does
 * not show yet is asked for again until the deadline.
 */
export async function create(api: KubeApi, object: KubeObject, deadline: number): Promise<void> {
  for (;;) {
    try {
      await api.create(object);
      return;
    } catch (error) {
      if (!(error instanceof NoKindMatchError) || Date.now() >= deadline) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, DISCOVERY_RETRY_MS));
  }
}
