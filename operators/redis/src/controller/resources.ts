import { createHash, randomBytes } from 'node:crypto';
import { type Stored, setControllerReference } from '@opkit/controller-runtime';
import { namespaceOf } from '@opkit/controller-runtime/controllerutil';
import {
  type ConfigMap,
  containerResources,
  type PodDisruptionBudget,
  type Secret,
  type Service,
  type StatefulSet,
} from '@opkit/controller-runtime/kinds';
import type { RedisCluster } from '../api/v1/redis-cluster.js';

export const REDIS_PORT = 6379;
export const BUS_PORT = 16379;
export const MANAGED_BY = 'redis-operator';
/** Mount paths inside the container. */
export const DATA_DIR = '/data';
export const CONFIG_DIR = '/etc/redis';
export const AUTH_DIR = '/etc/redis-auth';

/** Labels on everything one RedisCluster owns; `instance` keeps two clusters in a namespace apart. */
export function labelsFor(cr: Stored<RedisCluster>): Record<string, string> {
  return {
    'app.kubernetes.io/name': 'redis',
    'app.kubernetes.io/instance': cr.metadata.name,
    'app.kubernetes.io/component': 'cluster',
    'app.kubernetes.io/managed-by': MANAGED_BY,
  };
}

/** The pod selector of one RedisCluster (a subset of its labels that never changes). */
export function selectorFor(cr: Stored<RedisCluster>): Record<string, string> {
  return { 'app.kubernetes.io/name': 'redis', 'app.kubernetes.io/instance': cr.metadata.name };
}

export const names = (cr: Stored<RedisCluster>) => {
  const name = cr.metadata.name;
  return {
    statefulSet: name,
    headless: `${name}-headless`,
    client: name,
    config: `${name}-config`,
    /** The generated password Secret, when spec.auth.secretName is not given. */
    generatedSecret: `${name}-auth`,
    /** The operator's Secret holding auth.conf (requirepass/masterauth), mounted into the pods. */
    authConf: `${name}-auth-conf`,
    pdb: name,
  };
};

/** The Secret whose key `password` is the cluster's password. */
export function passwordSecretName(cr: Stored<RedisCluster>): string {
  return cr.spec.auth?.secretName ?? names(cr).generatedSecret;
}

/** Raised when no Redis image is configured: neither `spec.image` nor `RELATED_IMAGE_REDIS`. */
export class ImageNotConfiguredError extends Error {
  readonly code = 'REDIS_IMAGE_NOT_CONFIGURED';
  constructor() {
    super('no redis image: set spec.image or the operator’s RELATED_IMAGE_REDIS environment variable');
  }
}

export function imageFor(cr: RedisCluster, env: NodeJS.ProcessEnv = process.env): string {
  const image = cr.spec.image ?? env.RELATED_IMAGE_REDIS;
  if (!image) throw new ImageNotConfiguredError();
  return image;
}

/** Raised when `spec.config` holds what cannot be written into redis.conf as one directive per entry. */
export class ConfigInvalidError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigInvalidError';
  }
}

const DIRECTIVE = /^[a-z][a-z0-9-]*$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * redis.conf: the settings the operator owns, then the user's `spec.config`, then the password file. Each
 * entry of `spec.config` must stay one directive, whatever the API let through (the schema refuses line breaks
 * too, but objects stored before that rule still reach here).
 *
 * @throws ConfigInvalidError naming the entry
 */
export function redisConf(cr: RedisCluster): string {
  for (const [key, value] of Object.entries(cr.spec.config ?? {})) {
    if (!DIRECTIVE.test(key)) {
      throw new ConfigInvalidError(`spec.config key ${JSON.stringify(key)} is not a redis.conf directive`);
    }
    if (CONTROL.test(value)) {
      throw new ConfigInvalidError(
        `spec.config.${key} holds a control character (a line break would start another directive)`,
      );
    }
  }
  const owned = [
    `port ${REDIS_PORT}`,
    'cluster-enabled yes',
    `cluster-config-file ${DATA_DIR}/nodes.conf`,
    `dir ${DATA_DIR}`,
    'appendonly yes',
    'protected-mode no',
    'daemonize no',
  ];
  const defaults: Record<string, string> = { 'cluster-node-timeout': '5000' };
  const user = { ...defaults, ...cr.spec.config };
  const extra = Object.keys(user)
    .sort()
    .map((k) => `${k} ${user[k]}`);
  return `${[...owned, ...extra, `include ${AUTH_DIR}/auth.conf`].join('\n')}\n`;
}

/** A redis.conf string argument, quoted so any password survives. */
function quote(value: string): string {
  return `"${value
    .replace(/[\\"]/g, (c) => `\\${c}`)
    .replace(/\n/g, '\\n')
    .replace(/\r/g, '\\r')}"`;
}

/** auth.conf, included by redis.conf: the only place the password reaches the Redis processes. */
export function authConf(password: string): string {
  return `requirepass ${quote(password)}\nmasterauth ${quote(password)}\n`;
}

const UNESCAPE: Record<string, string> = { n: '\n', r: '\r' };

/** The password of an auth.conf written by {@link authConf}; undefined for anything else. */
export function passwordOfAuthConf(text: string | undefined): string | undefined {
  const quoted = text?.match(/^requirepass "((?:[^"\\]|\\.)*)"$/m)?.[1];
  return quoted?.replace(/\\(.)/g, (_, c: string) => UNESCAPE[c] ?? c);
}

/** Keys of the operator's auth Secret (`<name>-auth-conf`). */
export const AUTH_CONF_KEY = 'auth.conf';
/** The password nodes may still run with while a rotation rolls out; never mounted into the pods. */
export const PREVIOUS_PASSWORD_KEY = 'previous-password';
/** The key of the user's (or the generated) password Secret. */
export const PASSWORD_KEY = 'password';

export function generatePassword(): string {
  return randomBytes(24).toString('base64url');
}

export function desiredConfigMap(cr: Stored<RedisCluster>): ConfigMap {
  const cm = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: names(cr).config, namespace: namespaceOf(cr), labels: labelsFor(cr) },
    data: { 'redis.conf': redisConf(cr) },
  };
  setControllerReference(cr, cm);
  return cm;
}

/** The generated password Secret (created once; its password is never changed by the operator). */
export function desiredPasswordSecret(cr: Stored<RedisCluster>, password: string): Secret {
  const secret = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: names(cr).generatedSecret, namespace: namespaceOf(cr), labels: labelsFor(cr) },
    type: 'Opaque',
    stringData: { [PASSWORD_KEY]: password },
  };
  setControllerReference(cr, secret);
  return secret;
}

/**
 * The operator's auth Secret: auth.conf for the pods and, during a rotation, the previous password so the
 * operator can still reach nodes started with it (also after a restart of the operator).
 */
export function desiredAuthConfSecret(
  cr: Stored<RedisCluster>,
  password: string,
  previous?: string,
): Secret & { data: Record<string, string> } {
  const base64 = (text: string) => Buffer.from(text).toString('base64');
  const secret = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: names(cr).authConf, namespace: namespaceOf(cr), labels: labelsFor(cr) },
    type: 'Opaque',
    data: {
      [AUTH_CONF_KEY]: base64(authConf(password)),
      ...(previous !== undefined ? { [PREVIOUS_PASSWORD_KEY]: base64(previous) } : {}),
    },
  };
  setControllerReference(cr, secret);
  return secret;
}

/** A short digest, put on the pod template so a changed config restarts the pods. */
export function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/** The redis user of the official image (and of the test cluster's image). */
export const REDIS_UID = 999;

const restrictedContainer = {
  runAsNonRoot: true,
  allowPrivilegeEscalation: false,
  capabilities: { drop: ['ALL'] },
  seccompProfile: { type: 'RuntimeDefault' },
};

/**
 * The StatefulSet: stable pod names `<name>-0…`, parallel pod management (the operator, not start order,
 * forms the cluster), restricted Pod Security, the password only as a file from a Secret volume, the pod IP
 * (an address, not a secret) announced on the command line, /data in a claim or an emptyDir. One object
 * literal, longer than a function should be: the manifest reads whole, as the API server will show it.
 */
export function desiredStatefulSet(
  cr: Stored<RedisCluster>,
  image: string,
  replicas: number,
  configDigest: string,
): StatefulSet {
  const labels = labelsFor(cr);
  const n = names(cr);
  const storage = cr.spec.storage;
  const sts = {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: n.statefulSet, namespace: namespaceOf(cr), labels },
    spec: {
      replicas,
      serviceName: n.headless,
      podManagementPolicy: 'Parallel',
      selector: { matchLabels: selectorFor(cr) },
      // Not RollingUpdate: a rollout paced only by readiness can restart a primary before its replica has
      // synced (and, on emptyDir, wipe both). redis.conf and password changes apply as pods are restarted.
      updateStrategy: { type: 'OnDelete' },
      // Claims of removed nodes go with them: a later scale-out must not resurrect a forgotten node.
      persistentVolumeClaimRetentionPolicy: { whenScaled: 'Delete', whenDeleted: 'Retain' },
      template: {
        metadata: { labels, annotations: { 'cache.example.com/config-digest': configDigest } },
        spec: {
          automountServiceAccountToken: false,
          // Numeric ids: the official image starts as root and drops to its redis user (uid 999) itself, which
          // runAsNonRoot forbids. The group owns the data volume and may read the password file.
          securityContext: {
            runAsNonRoot: true,
            runAsUser: REDIS_UID,
            runAsGroup: REDIS_UID,
            fsGroup: REDIS_UID,
            seccompProfile: { type: 'RuntimeDefault' },
          },
          terminationGracePeriodSeconds: 30,
          affinity: {
            podAntiAffinity: {
              preferredDuringSchedulingIgnoredDuringExecution: [
                {
                  weight: 100,
                  podAffinityTerm: {
                    topologyKey: 'kubernetes.io/hostname',
                    labelSelector: { matchLabels: selectorFor(cr) },
                  },
                },
              ],
            },
          },
          containers: [
            {
              name: 'redis',
              image,
              imagePullPolicy: 'IfNotPresent',
              command: ['redis-server'],
              args: [`${CONFIG_DIR}/redis.conf`, '--cluster-announce-ip', '$(POD_IP)'],
              env: [{ name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } }],
              ports: [
                { name: 'redis', containerPort: REDIS_PORT, protocol: 'TCP' },
                { name: 'cluster-bus', containerPort: BUS_PORT, protocol: 'TCP' },
              ],
              readinessProbe: { tcpSocket: { port: 'redis' }, periodSeconds: 5 },
              livenessProbe: { tcpSocket: { port: 'redis' }, periodSeconds: 10, initialDelaySeconds: 15 },
              volumeMounts: [
                { name: 'data', mountPath: DATA_DIR },
                { name: 'config', mountPath: CONFIG_DIR, readOnly: true },
                { name: 'auth', mountPath: AUTH_DIR, readOnly: true },
              ],
              securityContext: restrictedContainer,
              ...(cr.spec.resources ? { resources: containerResources(cr.spec.resources) } : {}),
            },
          ],
          volumes: [
            { name: 'config', configMap: { name: n.config } },
            {
              name: 'auth',
              secret: {
                secretName: n.authConf,
                defaultMode: 0o400,
                items: [{ key: AUTH_CONF_KEY, path: 'auth.conf' }],
              },
            },
            ...(storage ? [] : [{ name: 'data', emptyDir: {} }]),
          ],
        },
      },
      ...(storage
        ? {
            volumeClaimTemplates: [
              {
                metadata: { name: 'data', labels },
                spec: {
                  accessModes: ['ReadWriteOnce'],
                  resources: containerResources({ requests: { storage: storage.size } }),
                  ...(storage.storageClassName ? { storageClassName: storage.storageClassName } : {}),
                },
              },
            ],
          }
        : {}),
    },
  };
  setControllerReference(cr, sts);
  return sts;
}

/** The headless Service that gives the StatefulSet's pods their DNS names (also for not-ready pods). */
export function desiredHeadlessService(cr: Stored<RedisCluster>): Service {
  const service = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: names(cr).headless, namespace: namespaceOf(cr), labels: labelsFor(cr) },
    spec: {
      clusterIP: 'None',
      publishNotReadyAddresses: true,
      selector: selectorFor(cr),
      ports: [
        { name: 'redis', port: REDIS_PORT, targetPort: 'redis', protocol: 'TCP' },
        { name: 'cluster-bus', port: BUS_PORT, targetPort: 'cluster-bus', protocol: 'TCP' },
      ],
    },
  };
  setControllerReference(cr, service);
  return service;
}

/** The client Service: a stable address for a cluster-aware client's first connection. */
export function desiredClientService(cr: Stored<RedisCluster>): Service {
  const service = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: names(cr).client, namespace: namespaceOf(cr), labels: labelsFor(cr) },
    spec: {
      type: 'ClusterIP',
      selector: selectorFor(cr),
      ports: [{ name: 'redis', port: REDIS_PORT, targetPort: 'redis', protocol: 'TCP' }],
    },
  };
  setControllerReference(cr, service);
  return service;
}

/** Voluntary disruptions (drains) take one Redis node at a time, so a primary and its replica never go together. */
export function desiredPodDisruptionBudget(cr: Stored<RedisCluster>): PodDisruptionBudget {
  const pdb = {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: names(cr).pdb, namespace: namespaceOf(cr), labels: labelsFor(cr) },
    spec: { maxUnavailable: 1, selector: { matchLabels: selectorFor(cr) } },
  };
  setControllerReference(cr, pdb);
  return pdb;
}
