import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type {
  V1KeyToPath,
  V1PersistentVolume,
  V1PersistentVolumeClaim,
  V1Pod,
  V1Volume,
} from '@kubernetes/client-node';
import type { KubeRest } from '../kube/rest.js';
import type { KeyReader } from './environment.js';
import type { PathMap } from './path-map.js';

/** Raised while a volume cannot be set up yet (claim unbound, object missing); the pod waits and retries. */
export class VolumeNotReadyError extends Error {
  readonly code = 'CLUSTER_VOLUME_NOT_READY';
}

function writeItems(
  dir: string,
  data: Record<string, string>,
  items: readonly V1KeyToPath[] | undefined,
  transform: (text: string) => string,
): void {
  mkdirSync(dir, { recursive: true });
  const entries = items?.length ? items.map((i) => [i.path, data[i.key]] as const) : Object.entries(data);
  for (const [path, value] of entries) {
    if (value === undefined) continue;
    const file = join(dir, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, transform(value), { mode: 0o644 });
  }
}

/**
 * Gives every volume of a pod a host directory: emptyDir, configMap and secret (written as files), projected
 * sources (including a real service-account token from the TokenRequest API), hostPath, and claims bound to a
 * directory-backed PersistentVolume, which outlive the pod.
 */
export async function materializeVolume(
  rest: KubeRest,
  pod: V1Pod,
  volume: V1Volume,
  podDir: string,
  read: KeyReader,
  paths: () => PathMap,
): Promise<string> {
  const namespace = pod.metadata!.namespace!;
  const dir = join(podDir, 'volumes', volume.name);
  // Config files may name other mounts (`dir /data`), so their text is mapped; secrets are left untouched.
  const mapText = (text: string) => paths().text(text);
  const keep = (text: string) => text;
  if (volume.persistentVolumeClaim) {
    const claim = await rest.request<V1PersistentVolumeClaim>(
      'GET',
      `/api/v1/namespaces/${namespace}/persistentvolumeclaims/${volume.persistentVolumeClaim.claimName}`,
    );
    const pvName = claim.spec?.volumeName;
    if (!pvName || claim.status?.phase !== 'Bound') {
      throw new VolumeNotReadyError(
        `persistentvolumeclaim "${volume.persistentVolumeClaim.claimName}" is not bound`,
      );
    }
    const pv = await rest.request<V1PersistentVolume>('GET', `/api/v1/persistentvolumes/${pvName}`);
    const path = pv.spec?.hostPath?.path ?? pv.spec?.local?.path;
    if (!path) throw new VolumeNotReadyError(`persistentvolume "${pvName}" has no host directory`);
    mkdirSync(path, { recursive: true });
    return path;
  }
  if (volume.hostPath) {
    mkdirSync(volume.hostPath.path, { recursive: true });
    return volume.hostPath.path;
  }
  if (volume.configMap || volume.secret) {
    const kind = volume.configMap ? 'ConfigMap' : 'Secret';
    const name = volume.configMap?.name ?? volume.secret?.secretName ?? '';
    const data = await read(kind, name);
    const optional = volume.configMap?.optional ?? volume.secret?.optional;
    if (!data && !optional) throw new VolumeNotReadyError(`${kind.toLowerCase()} "${name}" not found`);
    writeItems(
      dir,
      data ?? {},
      volume.configMap?.items ?? volume.secret?.items,
      volume.configMap ? mapText : keep,
    );
    return dir;
  }
  if (volume.projected) {
    mkdirSync(dir, { recursive: true });
    for (const source of volume.projected.sources ?? []) {
      if (source.configMap || source.secret) {
        const kind = source.configMap ? 'ConfigMap' : 'Secret';
        const name = source.configMap?.name ?? source.secret?.name ?? '';
        const data = await read(kind, name);
        writeItems(dir, data ?? {}, source.configMap?.items ?? source.secret?.items, keep);
      } else if (source.downwardAPI) {
        const values: Record<string, string> = {
          'metadata.name': pod.metadata!.name!,
          'metadata.namespace': namespace,
          'metadata.uid': pod.metadata!.uid!,
        };
        for (const item of source.downwardAPI.items ?? []) {
          const value = item.fieldRef ? values[item.fieldRef.fieldPath] : undefined;
          if (value !== undefined) writeItems(dir, { [item.path]: value }, undefined, keep);
        }
      } else if (source.serviceAccountToken) {
        const account = pod.spec?.serviceAccountName ?? 'default';
        const review = await rest.request<{ status: { token: string } }>(
          'POST',
          `/api/v1/namespaces/${namespace}/serviceaccounts/${account}/token`,
          {
            body: {
              apiVersion: 'authentication.k8s.io/v1',
              kind: 'TokenRequest',
              spec: {
                audiences: source.serviceAccountToken.audience
                  ? [source.serviceAccountToken.audience]
                  : undefined,
                expirationSeconds: source.serviceAccountToken.expirationSeconds ?? 3600,
                boundObjectRef: {
                  apiVersion: 'v1',
                  kind: 'Pod',
                  name: pod.metadata!.name,
                  uid: pod.metadata!.uid,
                },
              },
            },
          },
        );
        writeItems(dir, { [source.serviceAccountToken.path]: review.status.token }, undefined, keep);
      }
    }
    return dir;
  }
  // emptyDir and anything else: a plain directory that lives as long as the pod.
  mkdirSync(dir, { recursive: true });
  return dir;
}
