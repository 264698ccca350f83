import { ClusterError } from '../errors.js';
import { KubeApiError, type KubeRest } from '../kube/rest.js';
import type { ManifestObject } from './manifests.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

interface LiveObject {
  readonly metadata: { readonly resourceVersion: string; readonly [key: string]: unknown };
  readonly [key: string]: unknown;
}

interface LiveCrd {
  readonly status?: { readonly conditions?: readonly { type: string; status: string }[] };
}

/** One object the environment put into the cluster, and what was there before (nothing when it created it). */
interface Installed {
  readonly path: string;
  readonly before?: LiveObject;
}

const isStatus = (error: unknown, status: number) => error instanceof KubeApiError && error.status === status;

function collectionPath(object: ManifestObject): string {
  if (object.kind === 'CustomResourceDefinition') return CRDS;
  return `/apis/admissionregistration.k8s.io/v1/${object.kind.toLowerCase()}s`;
}

async function getIfPresent<T>(rest: KubeRest, path: string): Promise<T | undefined> {
  try {
    return await rest.request<T>('GET', path);
  } catch (error) {
    if (isStatus(error, 404)) return undefined;
    throw error;
  }
}

async function pollUntil(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      if (await check()) return;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      const detail = last instanceof Error ? `: ${last.message}` : '';
      throw new ClusterError(
        'CLUSTER_ENVTEST_INSTALL',
        `${what} did not happen within ${timeoutMs / 1000}s${detail}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The environment variable that lets a test environment replace an existing CRD that differs. */
export const REPLACE_CRDS_ENV = 'OPKIT_ENVTEST_REPLACE_CRDS';

/**
 * Whether `live` already holds everything `desired` says: the same scalars, arrays of the same length, and
 * every field of `desired`'s objects (the server adds defaults of its own, which do not count as a change).
 */
export function covers(desired: unknown, live: unknown): boolean {
  if (Array.isArray(desired)) {
    return (
      Array.isArray(live) &&
      live.length === desired.length &&
      desired.every((item, i) => covers(item, live[i]))
    );
  }
  if (typeof desired === 'object' && desired !== null) {
    if (typeof live !== 'object' || live === null || Array.isArray(live)) return false;
    const fields = live as Record<string, unknown>;
    return Object.entries(desired).every(([key, value]) => covers(value, fields[key]));
  }
  return desired === live;
}

/**
 * Cluster-scoped objects (CRDs, webhook configurations) installed by a test environment, and undone by
 * {@link ObjectInstaller.uninstall}: what it created is deleted, what it replaced is put back as it was.
 */
export class ObjectInstaller {
  readonly #rest: KubeRest;
  readonly #installed: Installed[] = [];

  constructor(rest: KubeRest) {
    this.#rest = rest;
  }

  /** Creates the object, or replaces the one of its name (remembering it). */
  async apply(object: ManifestObject): Promise<void> {
    const collection = collectionPath(object);
    const path = `${collection}/${object.metadata.name}`;
    for (;;) {
      const before = await getIfPresent<LiveObject>(this.#rest, path);
      try {
        if (before) {
          const metadata = { ...object.metadata, resourceVersion: before.metadata.resourceVersion };
          await this.#rest.request('PUT', path, { body: { ...object, metadata } });
        } else {
          await this.#rest.request('POST', collection, { body: object });
        }
        this.#installed.push({ path, ...(before ? { before } : {}) });
        return;
      } catch (error) {
        // Created or changed by someone else meanwhile: read it again.
        if (!isStatus(error, 409)) throw error;
      }
    }
  }

  /** Creates the object; refuses one of its name that exists (a name unique to the run should be free). */
  async create(object: ManifestObject): Promise<void> {
    const collection = collectionPath(object);
    await this.#rest.request('POST', collection, { body: object });
    this.#installed.push({ path: `${collection}/${object.metadata.name}` });
  }

  /**
   * For a cluster the environment does not own: creates the CRD; leaves one of its name whose spec already is
   * the CRD's (nothing to undo); replaces one that differs only with `replaceDiffering`, else refuses it.
   */
  async applyCrd(crd: ManifestObject, replaceDiffering: boolean): Promise<void> {
    const path = `${CRDS}/${crd.metadata.name}`;
    const live = await getIfPresent<LiveObject>(this.#rest, path);
    if (live === undefined) return this.apply(crd);
    if (covers(crd.spec, live.spec)) return;
    if (!replaceDiffering) {
      throw new ClusterError(
        'CLUSTER_ENVTEST_CRD_EXISTS',
        `CRD ${crd.metadata.name} exists in the cluster and differs from the one under test: set ${REPLACE_CRDS_ENV}=true (or replaceExistingCrds) to replace it for the run (stop() puts it back)`,
      );
    }
    return this.apply(crd);
  }

  /** Waits until the CRD is Established and a list of its storage version's kind answers. */
  async waitUntilServed(crd: ManifestObject, timeoutMs = 30_000): Promise<void> {
    const path = `${CRDS}/${crd.metadata.name}`;
    await pollUntil(`CRD ${crd.metadata.name} becoming Established`, timeoutMs, async () => {
      const live = await this.#rest.request<LiveCrd>('GET', path);
      return live.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ?? false;
    });
    const spec = crd.spec as {
      group?: string;
      names?: { plural?: string };
      versions?: { name: string; served?: boolean; storage?: boolean }[];
    };
    const served = (spec.versions ?? []).filter((v) => v.served);
    const version = (served.find((v) => v.storage) ?? served[0])?.name;
    if (!spec.group || !spec.names?.plural || !version) return;
    const list = `/apis/${spec.group}/${version}/${spec.names.plural}`;
    await pollUntil(`the kind of CRD ${crd.metadata.name} being served`, timeoutMs, async () => {
      await this.#rest.request('GET', list, { query: { limit: 1 } });
      return true;
    });
  }

  /** Undoes every `apply`, the last first: deletes what was created, restores what was replaced. */
  async uninstall(): Promise<void> {
    const failures: string[] = [];
    for (const { path, before } of this.#installed.splice(0).reverse()) {
      try {
        if (before) await this.#restore(path, before);
        else await this.#rest.request('DELETE', path);
      } catch (error) {
        if (!isStatus(error, 404)) failures.push(`${path}: ${(error as Error).message}`);
      }
    }
    if (failures.length > 0) {
      throw new ClusterError('CLUSTER_ENVTEST_UNINSTALL', `could not undo: ${failures.join('; ')}`);
    }
  }

  async #restore(path: string, before: LiveObject): Promise<void> {
    // What the server keeps for itself (status, managed fields) is not part of what is put back.
    const { status: _status, metadata: previous, ...content } = before;
    const { resourceVersion: _version, managedFields: _fields, ...metadata } = previous;
    for (;;) {
      const now = await this.#rest.request<LiveObject>('GET', path);
      const body = { ...content, metadata: { ...metadata, resourceVersion: now.metadata.resourceVersion } };
      try {
        await this.#rest.request('PUT', path, { body });
        return;
      } catch (error) {
        if (!isStatus(error, 409)) throw error;
      }
    }
  }
}
