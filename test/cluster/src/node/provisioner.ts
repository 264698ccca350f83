import { chmodSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { V1PersistentVolume, V1PersistentVolumeClaim, V1StorageClass } from '@kubernetes/client-node';
import { listWatch } from '../kube/list-watch.js';
import { KubeApiError, type KubeRest } from '../kube/rest.js';

/** The provisioner name our default StorageClass names. */
export const LOCAL_DIRECTORY_PROVISIONER = 'opkit.dev/local-directory';
export const DEFAULT_STORAGE_CLASS = 'standard';

/** The default StorageClass of the local control plane. */
export function defaultStorageClass(): V1StorageClass {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: {
      name: DEFAULT_STORAGE_CLASS,
      annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' },
    },
    provisioner: LOCAL_DIRECTORY_PROVISIONER,
    reclaimPolicy: 'Delete',
    volumeBindingMode: 'Immediate',
  };
}

/**
 * A dynamic provisioner, as an external CSI provisioner would be: every claim the controller-manager hands to
 * us gets a PersistentVolume backed by a host directory, which the controller-manager then binds. The
 * directory outlives pods (that is what makes persistence real) and is removed when the released volume is.
 */
export class DirectoryProvisioner {
  readonly #rest: KubeRest;
  readonly #dir: string;
  readonly #log: (message: string) => void;
  readonly #abort = new AbortController();
  readonly #loops: Promise<void>[] = [];

  constructor(rest: KubeRest, dir: string, log: (message: string) => void) {
    this.#rest = rest;
    this.#dir = dir;
    this.#log = log;
  }

  start(): void {
    const claim = (c: V1PersistentVolumeClaim) => void this.#provision(c);
    const volume = (v: V1PersistentVolume) => void this.#reclaim(v);
    this.#loops.push(
      listWatch<V1PersistentVolumeClaim>(
        this.#rest,
        '/api/v1/persistentvolumeclaims',
        {},
        { sync: (items) => items.forEach(claim), added: claim, modified: claim, deleted: () => {} },
        this.#abort.signal,
      ),
      listWatch<V1PersistentVolume>(
        this.#rest,
        '/api/v1/persistentvolumes',
        {},
        { sync: (items) => items.forEach(volume), added: volume, modified: volume, deleted: () => {} },
        this.#abort.signal,
      ),
    );
  }

  async #provision(claim: V1PersistentVolumeClaim): Promise<void> {
    const annotations = claim.metadata?.annotations ?? {};
    const provisioner =
      annotations['volume.kubernetes.io/storage-provisioner'] ??
      annotations['volume.beta.kubernetes.io/storage-provisioner'];
    if (
      provisioner !== LOCAL_DIRECTORY_PROVISIONER ||
      claim.spec?.volumeName ||
      claim.status?.phase !== 'Pending'
    )
      return;
    const { namespace, name, uid } = claim.metadata!;
    const pvName = `pvc-${uid}`;
    const path = join(this.#dir, pvName);
    mkdirSync(path, { recursive: true });
    // Containers run as their image's non-root user; like local-path provisioners, any user may write here.
    chmodSync(path, 0o777);
    const pv: V1PersistentVolume = {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: {
        name: pvName,
        annotations: { 'pv.kubernetes.io/provisioned-by': LOCAL_DIRECTORY_PROVISIONER },
      },
      spec: {
        capacity: { storage: claim.spec?.resources?.requests?.storage ?? '1Gi' },
        accessModes: claim.spec?.accessModes ?? ['ReadWriteOnce'],
        persistentVolumeReclaimPolicy: 'Delete',
        storageClassName: claim.spec?.storageClassName,
        volumeMode: claim.spec?.volumeMode,
        claimRef: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace, name, uid },
        hostPath: { path, type: 'DirectoryOrCreate' },
      },
    };
    try {
      await this.#rest.request('POST', '/api/v1/persistentvolumes', { body: pv });
      this.#log(`provisioned ${pvName} for ${namespace}/${name} at ${path}`);
    } catch (error) {
      if (!(error instanceof KubeApiError && error.status === 409)) {
        this.#log(`provisioning ${namespace}/${name}: ${(error as Error).message}`);
      }
    }
  }

  async #reclaim(pv: V1PersistentVolume): Promise<void> {
    const ours =
      pv.metadata?.annotations?.['pv.kubernetes.io/provisioned-by'] === LOCAL_DIRECTORY_PROVISIONER;
    if (!ours || pv.status?.phase !== 'Released' || pv.spec?.persistentVolumeReclaimPolicy !== 'Delete')
      return;
    const path = pv.spec?.hostPath?.path;
    if (path?.startsWith(this.#dir)) rmSync(path, { recursive: true, force: true });
    try {
      await this.#rest.request('DELETE', `/api/v1/persistentvolumes/${pv.metadata!.name}`);
    } catch (error) {
      if (!(error instanceof KubeApiError && error.status === 404)) {
        this.#log(`deleting released ${pv.metadata!.name}: ${(error as Error).message}`);
      }
    }
  }

  async stop(): Promise<void> {
    this.#abort.abort();
    await Promise.all(this.#loops);
  }
}
