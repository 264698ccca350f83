import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { ClusterError } from '../errors.js';
import { KubeApiError, type KubeRest } from '../kube/rest.js';
import { eventually } from '../polling.js';

/** The namespace of the Prometheus Operator and of the one Prometheus, as the operator's docs use it. */
export const PROMETHEUS_NAMESPACE = 'monitoring';
/** Prometheus' ServiceAccount: what an operator's ServiceMonitor RBAC (metrics-reader binding) names. */
export const PROMETHEUS_SERVICE_ACCOUNT = 'prometheus';
/** The Prometheus custom resource; the operator names its pods `prometheus-<name>-<n>`. */
const PROMETHEUS_NAME = 'prometheus';
/** The Service in front of Prometheus, as the operator's docs expose it (the operator's own is headless). */
const PROMETHEUS_SERVICE = 'prometheus';

/** Scrape and rule evaluation every 5 s: a test sees a target, a rule's value and an alert within seconds. */
const INTERVAL = '5s';

interface Manifest {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { name: string; namespace?: string; [key: string]: unknown };
  readonly [key: string]: unknown;
}

/** The REST collection of the kinds this install applies (cluster-scoped ones have no namespace). */
const RESOURCES: Record<string, { readonly plural: string; readonly namespaced: boolean }> = {
  CustomResourceDefinition: { plural: 'customresourcedefinitions', namespaced: false },
  Namespace: { plural: 'namespaces', namespaced: false },
  ServiceAccount: { plural: 'serviceaccounts', namespaced: true },
  Service: { plural: 'services', namespaced: true },
  ClusterRole: { plural: 'clusterroles', namespaced: false },
  ClusterRoleBinding: { plural: 'clusterrolebindings', namespaced: false },
  Deployment: { plural: 'deployments', namespaced: true },
  Prometheus: { plural: 'prometheuses', namespaced: true },
};

function objectPath(manifest: Manifest): string {
  const resource = RESOURCES[manifest.kind];
  if (resource === undefined) throw new Error(`no REST path known for kind ${manifest.kind}`);
  const base = manifest.apiVersion.includes('/')
    ? `/apis/${manifest.apiVersion}`
    : `/api/${manifest.apiVersion}`;
  const namespace = resource.namespaced
    ? `/namespaces/${manifest.metadata.namespace ?? PROMETHEUS_NAMESPACE}`
    : '';
  return `${base}${namespace}/${resource.plural}/${manifest.metadata.name}`;
}

/** Server-side apply, so installing again (an existing cluster) converges instead of failing. */
async function apply(rest: KubeRest, manifest: Manifest): Promise<void> {
  await rest.request('PATCH', objectPath(manifest), {
    body: manifest,
    contentType: 'application/apply-patch+yaml',
    query: { fieldManager: 'opkit-cluster', force: true },
    timeoutMs: 60_000,
  });
}

function readManifests(dir: string): Manifest[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.yaml'))
    .sort()
    .flatMap((file) =>
      parseAllDocuments(readFileSync(join(dir, file), 'utf8'))
        .map((doc) => doc.toJSON() as Manifest | null)
        .filter((manifest): manifest is Manifest => manifest !== null),
    );
}

/** The images the install runs, by upstream reference (the node's mirror serves them). */
export interface PrometheusImages {
  readonly operator: string;
  readonly configReloader: string;
  readonly prometheus: string;
  /** Prometheus' release, `3.16.0`: the Prometheus resource's `spec.version`. */
  readonly prometheusVersion: string;
}

/** Where the installed Prometheus answers, for a test on the node's host. */
export interface PrometheusInstall {
  /** `http://<cluster IP>:9090` of the `prometheus` Service this install creates (the host routes cluster IPs). */
  readonly url: string;
}

/**
 * The Prometheus Operator as its docs install it (CRDs, ServiceAccount, ClusterRole and binding, Deployment,
 * Service, in `monitoring`), run from `images`, and one Prometheus that selects every ServiceMonitor and
 * PrometheusRule in any namespace. Prometheus' ServiceAccount gets no cluster-wide RBAC: as in production, each
 * monitored namespace grants it what service discovery needs (an operator's `config/prometheus` does), and an
 * operator's metrics-reader ClusterRole is bound to it for `/metrics`.
 *
 * @param componentDir the cached `prometheus-operator` component: `crds/` and `install/` from its module.
 */
export async function installPrometheus(
  rest: KubeRest,
  componentDir: string,
  images: PrometheusImages,
  progress: (line: string) => void = () => {},
): Promise<PrometheusInstall> {
  const crds = readManifests(join(componentDir, 'crds'));
  for (const crd of crds) await apply(rest, crd);
  for (const crd of crds) {
    await eventually(
      `CRD ${crd.metadata.name} to be established`,
      async () => {
        const live = await rest.request<{ status?: { conditions?: { type: string; status: string }[] } }>(
          'GET',
          objectPath(crd),
        );
        return live.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
      },
      { timeoutMs: 60_000, intervalMs: 250 },
    );
  }
  await apply(rest, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: PROMETHEUS_NAMESPACE } });
  for (const manifest of readManifests(join(componentDir, 'install'))) {
    await apply(rest, operatorManifest(manifest, images));
  }
  await apply(rest, {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: PROMETHEUS_SERVICE_ACCOUNT, namespace: PROMETHEUS_NAMESPACE },
  });
  await applyWhenServed(rest, prometheusResource(images));
  await apply(rest, {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: PROMETHEUS_SERVICE, namespace: PROMETHEUS_NAMESPACE },
    spec: {
      // The operator labels every pod of a Prometheus with `prometheus: <name>`.
      selector: { prometheus: PROMETHEUS_NAME },
      ports: [{ name: 'web', port: 9090, targetPort: 'web' }],
    },
  });
  progress('Prometheus Operator installed; waiting for Prometheus');
  const service = await eventually(
    `Prometheus to be ready (pod prometheus-${PROMETHEUS_NAME}-0 in ${PROMETHEUS_NAMESPACE})`,
    async () => {
      const pod = await rest.request<{ status?: { conditions?: { type: string; status: string }[] } }>(
        'GET',
        `/api/v1/namespaces/${PROMETHEUS_NAMESPACE}/pods/prometheus-${PROMETHEUS_NAME}-0`,
      );
      if (!pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) return undefined;
      return rest.request<{ spec: { clusterIP?: string } }>(
        'GET',
        `/api/v1/namespaces/${PROMETHEUS_NAMESPACE}/services/${PROMETHEUS_SERVICE}`,
      );
    },
    { timeoutMs: 180_000, intervalMs: 500 },
  );
  if (service.spec.clusterIP === undefined)
    throw new ClusterError('CLUSTER_START_FAILED', `the Service ${PROMETHEUS_SERVICE} has no cluster IP`);
  return { url: `http://${service.spec.clusterIP}:9090` };
}

/** The operator's own manifests, moved into {@link PROMETHEUS_NAMESPACE} and pointed at the local images. */
function operatorManifest(manifest: Manifest, images: PrometheusImages): Manifest {
  const moved = structuredClone(manifest);
  if (RESOURCES[moved.kind]?.namespaced) moved.metadata.namespace = PROMETHEUS_NAMESPACE;
  if (moved.kind === 'ClusterRoleBinding') {
    for (const subject of (moved as { subjects?: { namespace?: string }[] }).subjects ?? []) {
      subject.namespace = PROMETHEUS_NAMESPACE;
    }
  }
  if (moved.kind === 'Deployment') {
    const spec = moved as unknown as {
      spec: { template: { spec: { containers: { image: string; args?: string[] }[] } } };
    };
    for (const container of spec.spec.template.spec.containers) {
      container.image = images.operator;
      container.args = (container.args ?? []).map((arg) =>
        arg.startsWith('--prometheus-config-reloader=')
          ? `--prometheus-config-reloader=${images.configReloader}`
          : arg,
      );
    }
  }
  return moved;
}

function prometheusResource(images: PrometheusImages): Manifest {
  return {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'Prometheus',
    metadata: { name: PROMETHEUS_NAME, namespace: PROMETHEUS_NAMESPACE },
    spec: {
      image: images.prometheus,
      version: `v${images.prometheusVersion}`,
      replicas: 1,
      serviceAccountName: PROMETHEUS_SERVICE_ACCOUNT,
      scrapeInterval: INTERVAL,
      evaluationInterval: INTERVAL,
      serviceMonitorSelector: {},
      serviceMonitorNamespaceSelector: {},
      ruleSelector: {},
      ruleNamespaceSelector: {},
      // Nothing else: no PodMonitors, Probes or ScrapeConfigs are selected.
      resources: { requests: { cpu: '50m', memory: '200Mi' } },
    },
  };
}

/** The operator's CRDs are established but discovery may lag a moment behind: retry a 404 briefly. */
async function applyWhenServed(rest: KubeRest, manifest: Manifest): Promise<void> {
  await eventually(
    `the ${manifest.kind} API to be served`,
    async () => {
      try {
        await apply(rest, manifest);
        return true;
      } catch (error) {
        if (error instanceof KubeApiError && error.status === 404) return false;
        throw error;
      }
    },
    { timeoutMs: 30_000, intervalMs: 250 },
  );
}
