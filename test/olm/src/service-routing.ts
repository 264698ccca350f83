import type { KubeRest } from '@opkit/test-cluster';

interface Service {
  readonly spec: {
    readonly clusterIP?: string;
    readonly selector?: Readonly<Record<string, string>>;
    readonly ports?: readonly { readonly port: number; readonly targetPort?: number | string }[];
  };
}
interface EndpointSlice {
  readonly metadata: { readonly name: string };
  readonly ports?: readonly { readonly port?: number }[];
  readonly endpoints?: readonly {
    readonly addresses: readonly string[];
    readonly conditions?: {
      readonly ready?: boolean;
      readonly serving?: boolean;
      readonly terminating?: boolean;
    };
    readonly targetRef?: { readonly name?: string };
  }[];
}
interface Pod {
  readonly metadata: { readonly name: string; readonly deletionTimestamp?: string };
  readonly status?: {
    readonly phase?: string;
    readonly podIP?: string;
    readonly conditions?: readonly { readonly type: string; readonly status: string }[];
    readonly containerStatuses?: readonly {
      readonly name: string;
      readonly ready: boolean;
      readonly restartCount: number;
    }[];
  };
}

/**
 * What a Service routes to as the API server sees it: its ports, its EndpointSlices and the pods its selector
 * picks. Failures to reach a webhook through its Service are explained by this, so tests append it.
 */
export async function serviceRouting(rest: KubeRest, namespace: string, name: string): Promise<string> {
  const lines = [`Service ${namespace}/${name}:`];
  const service = await rest
    .request<Service>('GET', `/api/v1/namespaces/${namespace}/services/${name}`)
    .catch((e: Error) => e);
  if (service instanceof Error) return `${lines[0]} ${service.message}`;
  const ports = (service.spec.ports ?? []).map((p) => `${p.port}→${p.targetPort ?? p.port}`).join(', ');
  lines.push(`  clusterIP ${service.spec.clusterIP ?? '-'}, ports ${ports || '-'}`);
  const slices = await rest.request<{ items: EndpointSlice[] }>(
    'GET',
    `/apis/discovery.k8s.io/v1/namespaces/${namespace}/endpointslices`,
    { query: { labelSelector: `kubernetes.io/service-name=${name}` } },
  );
  for (const slice of slices.items) {
    const endpoints = (slice.endpoints ?? []).map((e) => {
      const c = e.conditions ?? {};
      return `${e.addresses.join('/')} (${e.targetRef?.name ?? '?'}, ready=${c.ready}, serving=${c.serving}, terminating=${c.terminating})`;
    });
    const slicePorts = (slice.ports ?? []).map((p) => p.port).join(',');
    lines.push(
      `  EndpointSlice ${slice.metadata.name}, ports ${slicePorts || '-'}: ${endpoints.join('; ') || 'no endpoints'}`,
    );
  }
  if (slices.items.length === 0) lines.push('  no EndpointSlices');
  const selector = Object.entries(service.spec.selector ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
  if (selector) {
    const pods = await rest.request<{ items: Pod[] }>('GET', `/api/v1/namespaces/${namespace}/pods`, {
      query: { labelSelector: selector },
    });
    for (const pod of pods.items) {
      const conditions = (pod.status?.conditions ?? []).map((c) => `${c.type}=${c.status}`).join(' ');
      const containers = (pod.status?.containerStatuses ?? [])
        .map((c) => `${c.name} ready=${c.ready} restarts=${c.restartCount}`)
        .join(', ');
      const deleting = pod.metadata.deletionTimestamp ? ', deleting' : '';
      lines.push(
        `  pod ${pod.metadata.name} ${pod.status?.phase ?? '?'} ${pod.status?.podIP ?? '-'}${deleting}: ${conditions}; ${containers}`,
      );
    }
    if (pods.items.length === 0) lines.push(`  no pod matches ${selector}`);
  }
  return lines.join('\n');
}

/** Adds what the Service routes to to a failure. */
export async function explainedByService<T>(
  rest: KubeRest,
  service: { namespace: string; name: string },
  work: Promise<T>,
): Promise<T> {
  try {
    return await work;
  } catch (error) {
    const routing = await serviceRouting(rest, service.namespace, service.name).catch(
      (e: Error) => `(routing of Service ${service.name} unknown: ${e.message})`,
    );
    (error as Error).message += `\n${routing}`;
    throw error;
  }
}
