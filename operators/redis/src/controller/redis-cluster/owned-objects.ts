// The Kubernetes objects a RedisCluster owns: those that follow from the spec alone, and the StatefulSet of
// Redis nodes, which grows at once and shrinks only once the Redis Cluster has let its last pods go.

import { applyIfChanged, ignoreNotFound } from '@opkit/controller-runtime';
import {
  CONFIG_MAP,
  POD_DISRUPTION_BUDGET,
  SERVICE,
  STATEFUL_SET,
  type StatefulSet,
} from '@opkit/controller-runtime/kinds';
import {
  authConf,
  desiredClientService,
  desiredConfigMap,
  desiredHeadlessService,
  desiredPodDisruptionBudget,
  desiredStatefulSet,
  digest,
  redisConf,
} from '../resources.js';
import type { SyncResult } from '../topology.js';
import type { ClusterPass } from './context.js';

/** The objects that follow from the spec alone: applied when the cache shows them differing. */
export async function applySpecObjects({ client, cr, namespace }: ClusterPass): Promise<void> {
  for (const [type, desired] of [
    [CONFIG_MAP, desiredConfigMap(cr)],
    [SERVICE, desiredHeadlessService(cr)],
    [SERVICE, desiredClientService(cr)],
    [POD_DISRUPTION_BUDGET, desiredPodDisruptionBudget(cr)],
  ] as const) {
    const live = await ignoreNotFound(client.get(type, desired.metadata.name ?? '', namespace));
    await applyIfChanged(client, desired, live);
  }
}

export interface AppliedStatefulSet {
  /** The pods the StatefulSet keeps now. */
  readonly replicas: number;
  /** The revision of the current pod template, once the StatefulSet's controller has recorded it. */
  readonly updateRevision: string | undefined;
}

/** The StatefulSet for the spec, the image and the password; never fewer pods than it has (scale-in waits). */
export async function applyStatefulSet(
  pass: ClusterPass,
  image: string,
  pw: string,
): Promise<AppliedStatefulSet> {
  const { client, events, cr, namespace, names } = pass;
  const configDigest = digest(redisConf(cr) + digest(authConf(pw)));
  const sts = await ignoreNotFound(client.get<StatefulSet>(STATEFUL_SET, names.statefulSet, namespace));
  const current = sts?.spec?.replicas ?? 0;
  // Scale-in: the StatefulSet keeps its pods until the cluster has moved their slots off and forgotten them.
  const replicas = Math.max(current, cr.spec.size);
  const stsChanged =
    (await applyIfChanged(client, desiredStatefulSet(cr, image, replicas, configDigest), sts)) !==
    'unchanged';
  if (stsChanged && !sts) {
    events.event(
      cr,
      'Normal',
      'Created',
      'CreateStatefulSet',
      `StatefulSet ${names.statefulSet} with ${replicas} pods`,
    );
  } else if (sts && replicas > current) {
    events.event(
      cr,
      'Normal',
      'ScaledOut',
      'ScaleStatefulSet',
      `StatefulSet ${names.statefulSet} scaled from ${current} to ${replicas} pods; slots follow once they join`,
    );
  }
  // Pods from an older template restart one at a time (OnDelete), once the StatefulSet has recorded the
  // revision of its current template.
  const updateRevision =
    sts && !stsChanged && sts.status?.observedGeneration === sts.metadata.generation
      ? sts.status?.updateRevision
      : undefined;
  return { replicas, updateRevision };
}

/** Scale-in: shrinks the StatefulSet to the pods the cluster still needs; returns the pods it keeps. */
export async function scaleIn(pass: ClusterPass, replicas: number, sync: SyncResult): Promise<number> {
  if (sync.removablePodsFrom >= replicas) return replicas;
  const { client, events, cr, namespace, names } = pass;
  const kept = sync.removablePodsFrom;
  await client.patch(
    { ...STATEFUL_SET, name: names.statefulSet, namespace },
    { spec: { replicas: kept } },
    'merge',
  );
  events.event(
    cr,
    'Normal',
    'ScaledIn',
    'ScaleStatefulSet',
    `StatefulSet ${names.statefulSet} scaled to ${kept} pods`,
  );
  return kept;
}
