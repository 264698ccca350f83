import { findStatusCondition } from '@opkit/controller-runtime';
import {
  type LiveObject,
  type Oracle,
  quantityCeilIn,
  resourceListDifferences,
} from '@opkit/test-cluster/state-testing';
import type { MemcachedSpec, MemcachedStatus } from '../../src/index.js';
import { MEMCACHED_IMAGE } from './operator.js';

// The judgement of a Memcached's operands and status, shared by the state test and the fault matrix.

interface Container {
  image: string;
  args: string[];
  ports: { containerPort: number }[];
  resources?: { limits?: Record<string, string>; requests?: Record<string, string> };
}
interface Deployment {
  spec: { replicas: number; template: { spec: { containers: Container[] } } };
}
interface Service {
  spec: { ports: { port: number }[] };
}
interface PodDisruptionBudget {
  spec: { maxUnavailable?: number | string };
}

/** The operands as the spec says, worked out here from the spec alone (not from the operator's code). */
export const operandsMatch: Oracle<MemcachedSpec> = async ({ spec, object, rest, namespace }) => {
  const at = (path: string) => `/${path.replace('{ns}', namespace)}/${object.metadata.name}`;
  const problems: string[] = [];
  const differ = (what: string, actual: unknown, expected: unknown) => {
    if (JSON.stringify(actual) !== JSON.stringify(expected)) {
      problems.push(`${what} is ${JSON.stringify(actual)}, the spec says ${JSON.stringify(expected)}`);
    }
  };
  const port = spec.port?.containerPort ?? 11211;
  const deployment = await rest.request<Deployment>('GET', at('apis/apps/v1/namespaces/{ns}/deployments'));
  const [container] = deployment.spec.template.spec.containers;
  differ('Deployment replicas', deployment.spec.replicas, spec.replicas);
  differ('image', container?.image, spec.image ?? MEMCACHED_IMAGE);
  differ('args', container?.args, [
    `--port=${port}`,
    `--memory-limit=${quantityCeilIn(spec.memory ?? '64Mi', '1Mi')}`,
    `--conn-limit=${spec.maxConnections ?? 1024}`,
    `--threads=${spec.threads}`,
    `--max-item-size=${spec.maxItemSize ?? '1m'}`,
    ...(spec.extraArgs ?? []),
  ]);
  differ(
    'container port',
    container?.ports.map((p) => p.containerPort),
    [port],
  );
  problems.push(
    ...resourceListDifferences('limits', container?.resources?.limits, spec.resources?.limits),
    ...resourceListDifferences('requests', container?.resources?.requests, spec.resources?.requests),
  );
  const service = await rest.request<Service>('GET', at('api/v1/namespaces/{ns}/services'));
  differ(
    'Service ports',
    service.spec.ports.map((p) => p.port),
    [port],
  );
  const pdb = await rest
    .request<PodDisruptionBudget>('GET', at('apis/policy/v1/namespaces/{ns}/poddisruptionbudgets'))
    .catch(() => undefined);
  differ('PodDisruptionBudget maxUnavailable', pdb?.spec.maxUnavailable, spec.replicas > 1 ? 1 : undefined);
  return problems;
};

/** Whether the status says the generation's work is done: observed, every replica ready, Available. */
export function memcachedReady(
  status: MemcachedStatus | undefined,
  generation: number,
  object: LiveObject<MemcachedSpec, MemcachedStatus>,
): boolean {
  return (
    status?.observedGeneration === generation &&
    status.readyReplicas === object.spec.replicas &&
    findStatusCondition(status.conditions, 'Available')?.status === 'True'
  );
}
