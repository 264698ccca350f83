// The Kubernetes side of `run bundle`, `run bundle-upgrade` and `cleanup`: typed reads, lists, applies and
// deletes of the OLM objects over the runtime's client, every failure one line naming the object.
import { isAlreadyExists, type ObjectClient } from '@opkit/controller-runtime/client';
import { CliError } from '../cli-error.js';
import { isAbsent as absent, connectKube, refOf } from '../kube-connection.js';
import { apiError } from '../publish.js';
import { FIELD_MANAGER, type OlmObject } from './olm-objects.js';

/** The calls made to the API server, those of the runtime's client; tests give a fake in memory. */
export type ObjectApi = Pick<ObjectClient, 'get' | 'list' | 'create' | 'patch' | 'apply' | 'delete'>;

/** A connection to the cluster and the namespace the command works in. */
export interface Cluster {
  readonly api: ObjectApi;
  readonly namespace: string;
  readonly kubeconfig: string | undefined;
}

/**
 * Connects as kubectl does; the namespace is `--namespace`, else the current context's, else `default`.
 * Callers close it when done.
 */
export function connect(
  kubeconfig: string | undefined,
  namespace: string | undefined,
): Cluster & { close(): Promise<void> } {
  const kube = connectKube(kubeconfig);
  return {
    api: kube.client,
    namespace: namespace ?? (kube.namespace || 'default'),
    kubeconfig,
    close: () => kube.close(),
  };
}

type Header = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } };

function describe(o: { kind: string; metadata: { name?: string; namespace?: string } }): string {
  return `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;
}

/** Reads an object; `undefined` when it does not exist. */
export async function readOptional<T extends OlmObject>(
  cluster: Cluster,
  header: Header,
): Promise<T | undefined> {
  try {
    return await cluster.api.get<T>(header, header.metadata.name, header.metadata.namespace);
  } catch (err) {
    if (absent(err)) return undefined;
    throw apiError(`read ${describe(header)}`, err);
  }
}

/** Lists objects of a kind in the namespace (or cluster-wide for `namespace: undefined`), by label. */
export async function list<T extends OlmObject>(
  cluster: Cluster,
  apiVersion: string,
  kind: string,
  options: { readonly namespace?: string; readonly labelSelector?: string } = {},
): Promise<T[]> {
  try {
    const result = await cluster.api.list<T>(
      { apiVersion, kind },
      {
        ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
        ...(options.labelSelector === undefined ? {} : { labelSelector: options.labelSelector }),
      },
    );
    return result.items;
  } catch (err) {
    throw apiError(`list ${kind}${options.namespace ? ` in ${options.namespace}` : ''}`, err);
  }
}

/**
 * Creates an object that must not exist yet: one that appeared since it was looked for is somebody else's,
 * and is refused rather than overwritten.
 */
export async function create<T extends OlmObject>(cluster: Cluster, object: T): Promise<T> {
  try {
    return await cluster.api.create(object, { fieldManager: FIELD_MANAGER });
  } catch (err) {
    if (isAlreadyExists(err)) {
      throw new CliError(
        'OPKIT_OBJECT_NOT_OURS',
        `${describe(object)} already exists and was not created by this run: it is left as it is`,
        { cause: err },
      );
    }
    throw apiError(`create ${describe(object)}`, err);
  }
}

/** A JSON merge patch of an object. */
export async function mergePatch(
  cluster: Cluster,
  header: Header,
  patch: Record<string, unknown>,
): Promise<void> {
  try {
    await cluster.api.patch(
      refOf(header),
      { ...patch, apiVersion: header.apiVersion, kind: header.kind, metadata: header.metadata },
      'merge',
      { fieldManager: FIELD_MANAGER },
    );
  } catch (err) {
    throw apiError(`patch ${describe(header)}`, err);
  }
}

/** Deletes an object (dependents in the background); one already gone counts as deleted. */
export async function remove(cluster: Cluster, header: Header): Promise<boolean> {
  try {
    await cluster.api.delete(refOf(header), { propagationPolicy: 'Background' });
    return true;
  } catch (err) {
    if (absent(err)) return false;
    throw apiError(`delete ${describe(header)}`, err);
  }
}

/** A deadline shared by every wait of one command (`--timeout`). */
export class Deadline {
  readonly #end: number;
  constructor(readonly timeoutMs: number) {
    this.#end = Date.now() + timeoutMs;
  }
  get remainingMs(): number {
    return Math.max(0, this.#end - Date.now());
  }
  get passed(): boolean {
    return Date.now() >= this.#end;
  }
}

/**
 * Calls `check` every `intervalMs` until it returns a value. When the deadline passes, the error names what
 * was awaited and the last state `check` reported through `state`.
 */
export async function waitFor<T>(
  what: string,
  deadline: Deadline,
  check: (state: (line: string) => void) => Promise<T | undefined>,
  options: { readonly intervalMs?: number; readonly log?: (line: string) => void } = {},
): Promise<T> {
  let last: string | undefined;
  const state = (line: string) => {
    if (line !== last) options.log?.(line);
    last = line;
  };
  for (;;) {
    const value = await check(state);
    if (value !== undefined) return value;
    if (deadline.passed) {
      throw new CliError(
        'OPKIT_TIMEOUT',
        `timed out after ${deadline.timeoutMs / 1000}s waiting for ${what}${last === undefined ? '' : `; last state: ${last}`} (raise --timeout)`,
      );
    }
    await new Promise((r) => setTimeout(r, Math.min(options.intervalMs ?? 500, deadline.remainingMs)));
  }
}
