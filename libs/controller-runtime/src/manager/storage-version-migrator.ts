import type { DirectClient } from '../client/direct-client.js';
import { isConflict, isNotFound } from '../errors/errors.js';
import { Backoff, sleep } from '../internal/retry/backoff.js';
import type { Logger } from '../log/index.js';
import { type Kind, type KubeObject, kind } from '../object.js';
import type { ResourcePolicyRule } from '../rbac/policy-rules.js';
import type { Runnable } from './manager.js';

interface CrdStatusView extends KubeObject {
  spec: { group: string; names: { kind: string }; versions: { name: string; storage: boolean }[] };
  status?: { storedVersions?: string[] };
}

const CRD = kind<CrdStatusView>('apiextensions.k8s.io/v1', 'CustomResourceDefinition');

/** What a migration did. */
export interface MigrationResult {
  /** Objects written back (so stored in the storage version). */
  readonly rewritten: number;
  /** `status.storedVersions` before; after a migration it is just the storage version. */
  readonly storedVersions: readonly string[];
}

/**
 * Rewrites every object of a CRD in its storage version and then trims `status.storedVersions` to it, as the
 * kube-storage-version-migrator does: an update that changes nothing still re-encodes the object in the
 * storage version (the stored bytes differ), and objects written meanwhile are stored in it anyway. Once the
 * old versions are gone from `storedVersions`, a later CRD may stop serving them, which the API server (and
 * OLM, on upgrade) refuses while objects might still be stored that way. A conflict means the object was
 * just written, so it is migrated already; a write the webhooks refuse stops the trim and is reported.
 */
export async function migrateStorageVersion(
  client: DirectClient,
  crdName: string,
  options: { readonly pageSize?: number; readonly signal?: AbortSignal } = {},
): Promise<MigrationResult> {
  const crd = await client.get(CRD, crdName);
  const storage = crd.spec.versions.find((v) => v.storage)?.name;
  if (!storage) throw new Error(`${crdName} has no storage version`);
  const storedVersions = crd.status?.storedVersions ?? [];
  if (storedVersions.length === 1 && storedVersions[0] === storage) return { rewritten: 0, storedVersions };
  const type: Kind = { apiVersion: `${crd.spec.group}/${storage}`, kind: crd.spec.names.kind };
  let rewritten = 0;
  let continueToken: string | undefined;
  do {
    if (options.signal?.aborted) throw new Error('storage version migration stopped');
    const page = await client.list<KubeObject>(type, {
      limit: options.pageSize ?? 500,
      continue: continueToken,
    });
    for (const obj of page.items) {
      try {
        await client.update({ ...obj, apiVersion: type.apiVersion, kind: type.kind });
        rewritten++;
      } catch (error) {
        if (isNotFound(error) || isConflict(error)) continue;
        throw new Error(
          `cannot rewrite ${obj.metadata.namespace ? `${obj.metadata.namespace}/` : ''}${obj.metadata.name} in ${storage}: ${(error as Error).message}`,
          { cause: error },
        );
      }
    }
    continueToken = page.metadata.continue || undefined;
  } while (continueToken);
  await client.patch({ ...CRD, name: crdName }, { status: { storedVersions: [storage] } }, 'merge', {
    subresource: 'status',
  });
  return { rewritten, storedVersions };
}

/** The rights {@link storageVersionMigrator} needs besides updating the kind itself. */
export function storageVersionMigrationRbac(crdName: string): ResourcePolicyRule[] {
  return [
    { apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], verbs: ['get'] },
    {
      apiGroups: ['apiextensions.k8s.io'],
      resources: ['customresourcedefinitions/status'],
      resourceNames: [crdName],
      verbs: ['patch'],
    },
  ];
}

/**
 * A leader-only runnable that migrates the CRD's stored objects to its storage version once, after an
 * upgrade changed it, retrying with back-off until it succeeds or the manager stops.
 */
export function storageVersionMigrator(client: DirectClient, crdName: string, logger: Logger): Runnable {
  return {
    async start(signal) {
      const backoff = new Backoff({ initialMs: 2_000, maxMs: 60_000 });
      while (!signal.aborted) {
        try {
          const result = await migrateStorageVersion(client, crdName, { signal });
          if (result.rewritten > 0 || result.storedVersions.length > 1) {
            logger.info('storage version migrated', {
              crd: crdName,
              rewritten: result.rewritten,
              storedVersionsBefore: result.storedVersions.join(','),
            });
          }
          return;
        } catch (error) {
          if (signal.aborted) return;
          logger.warn('storage version migration failed; retrying', {
            crd: crdName,
            error: (error as Error).message,
          });
          await sleep(backoff.next(), signal);
        }
      }
    },
  };
}
