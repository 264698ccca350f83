import { type Stored, setControllerReference } from '@opkit/controller-runtime';
import { namespaceOf } from '@opkit/controller-runtime/controllerutil';
import {
  containerResources,
  DEPLOYMENT,
  type Deployment,
  POD_DISRUPTION_BUDGET,
  type PodDisruptionBudget,
  SERVICE,
  type Service,
} from '@opkit/controller-runtime/kinds';
import { DEFAULTS, defaultThreads, type Memcached, memoryMegabytes } from '../api/v1beta1/memcached.js';

/** The operator's name in the `app.kubernetes.io/managed-by` label of everything it makes. */
export const MANAGED_BY = 'memcached-operator';

/** Labels on everything one Memcached owns; `instance` keeps two Memcacheds in a namespace apart. */
export function labelsFor(cr: Stored<Memcached>): Record<string, string> {
  return {
    'app.kubernetes.io/name': 'memcached',
    'app.kubernetes.io/instance': cr.metadata.name,
    'app.kubernetes.io/managed-by': MANAGED_BY,
  };
}

/** The pod selector of one Memcached (a subset of its labels that never changes). */
export function selectorFor(cr: Stored<Memcached>): Record<string, string> {
  return { 'app.kubernetes.io/name': 'memcached', 'app.kubernetes.io/instance': cr.metadata.name };
}

/** The memcached user of the official image (and of the test cluster's image). */
export const MEMCACHED_UID = 11211;

/** Raised when no memcached image is configured: neither `spec.image` nor `RELATED_IMAGE_MEMCACHED`. */
export class ImageNotConfiguredError extends Error {
  readonly code = 'MEMCACHED_IMAGE_NOT_CONFIGURED';
  constructor() {
    super(
      'no memcached image: set spec.image or the operator’s RELATED_IMAGE_MEMCACHED environment variable',
    );
  }
}

export function imageFor(cr: Memcached, env: NodeJS.ProcessEnv = process.env): string {
  const image = cr.spec.image ?? env.RELATED_IMAGE_MEMCACHED;
  if (!image) throw new ImageNotConfiguredError();
  return image;
}

export function portOf(cr: Memcached): number {
  return cr.spec.port?.containerPort ?? DEFAULTS.containerPort;
}

/** memcached's command line from the spec: every setting the operator owns, then the user's extra args. */
export function memcachedArgs(cr: Memcached): string[] {
  const s = cr.spec;
  // A memory the schema's pattern refuses (an object that skipped validation) runs with the default.
  const memoryLimit = memoryMegabytes(s.memory ?? DEFAULTS.memory) ?? memoryMegabytes(DEFAULTS.memory);
  return [
    `--port=${portOf(cr)}`,
    `--memory-limit=${memoryLimit}`,
    `--conn-limit=${s.maxConnections ?? DEFAULTS.maxConnections}`,
    `--threads=${s.threads ?? defaultThreads(s)}`,
    `--max-item-size=${s.maxItemSize ?? DEFAULTS.maxItemSize}`,
    ...(s.extraArgs ?? []),
  ];
}

/**
 * The Deployment: `replicas` servers of memcached under the restricted Pod Security profile (non-root, no
 * privilege escalation, no capabilities, RuntimeDefault seccomp, and no fixed UID so OpenShift's restricted
 * SCC can assign one), ready when the port accepts connections.
 */
export function desiredDeployment(cr: Stored<Memcached>, image: string): Deployment {
  const labels = labelsFor(cr);
  const port = portOf(cr);
  const deployment: Deployment = {
    ...DEPLOYMENT,
    metadata: { name: cr.metadata.name, namespace: namespaceOf(cr), labels },
    spec: {
      replicas: cr.spec.replicas,
      selector: { matchLabels: selectorFor(cr) },
      progressDeadlineSeconds: 120,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 1 } },
      template: {
        metadata: { labels },
        spec: {
          // Numeric ids: the official image's user is a name (memcache, uid 11211), which a kubelet cannot
          // check against runAsNonRoot.
          securityContext: {
            runAsNonRoot: true,
            runAsUser: MEMCACHED_UID,
            runAsGroup: MEMCACHED_UID,
            seccompProfile: { type: 'RuntimeDefault' },
          },
          terminationGracePeriodSeconds: 30,
          // Servers on different nodes where possible. A spread, not a preferred pod anti-affinity: to score
          // anti-affinity the scheduler matches every pod in the cluster for each pod it places, work that grows
          // with the square of the cluster's pods; a spread matches only this namespace's pods on each node.
          topologySpreadConstraints: [
            {
              maxSkew: 1,
              topologyKey: 'kubernetes.io/hostname',
              whenUnsatisfiable: 'ScheduleAnyway',
              labelSelector: { matchLabels: selectorFor(cr) },
            },
          ],
          containers: [
            {
              name: 'memcached',
              image,
              imagePullPolicy: 'IfNotPresent',
              command: ['memcached'],
              args: memcachedArgs(cr),
              ports: [{ name: 'memcached', containerPort: port, protocol: 'TCP' }],
              readinessProbe: { tcpSocket: { port: 'memcached' }, periodSeconds: 5 },
              livenessProbe: { tcpSocket: { port: 'memcached' }, periodSeconds: 10, initialDelaySeconds: 10 },
              securityContext: {
                runAsNonRoot: true,
                allowPrivilegeEscalation: false,
                capabilities: { drop: ['ALL'] },
                seccompProfile: { type: 'RuntimeDefault' },
              },
              ...(cr.spec.resources ? { resources: containerResources(cr.spec.resources) } : {}),
            },
          ],
        },
      },
    },
  };
  setControllerReference(cr, deployment);
  return deployment;
}

/** A headless Service: DNS returns every server, so clients can hash keys over all of them. */
export function desiredService(cr: Stored<Memcached>): Service {
  const service: Service = {
    ...SERVICE,
    metadata: { name: cr.metadata.name, namespace: namespaceOf(cr), labels: labelsFor(cr) },
    spec: {
      clusterIP: 'None',
      selector: selectorFor(cr),
      ports: [{ name: 'memcached', port: portOf(cr), targetPort: 'memcached', protocol: 'TCP' }],
    },
  };
  setControllerReference(cr, service);
  return service;
}

/** With more than one server, voluntary disruptions (drains) take at most one at a time. */
export function desiredPodDisruptionBudget(cr: Stored<Memcached>): PodDisruptionBudget {
  const pdb: PodDisruptionBudget = {
    ...POD_DISRUPTION_BUDGET,
    metadata: { name: cr.metadata.name, namespace: namespaceOf(cr), labels: labelsFor(cr) },
    spec: { maxUnavailable: 1, selector: { matchLabels: selectorFor(cr) } },
  };
  setControllerReference(cr, pdb);
  return pdb;
}
