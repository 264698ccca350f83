import type { V1Container, V1Pod } from '@kubernetes/client-node';

/** Reads a ConfigMap or Secret key; undefined when the object or key is missing. */
export type KeyReader = (
  kind: 'ConfigMap' | 'Secret',
  name: string,
) => Promise<Record<string, string> | undefined>;

function fieldRef(pod: V1Pod, path: string, podIP: string): string {
  const meta = pod.metadata ?? {};
  switch (path) {
    case 'metadata.name':
      return meta.name ?? '';
    case 'metadata.namespace':
      return meta.namespace ?? '';
    case 'metadata.uid':
      return meta.uid ?? '';
    case 'spec.nodeName':
      return pod.spec?.nodeName ?? '';
    case 'spec.serviceAccountName':
      return pod.spec?.serviceAccountName ?? '';
    case 'status.podIP':
    case 'status.hostIP':
      return podIP;
    default: {
      const label = path.match(/^metadata\.(labels|annotations)\['(.+)'\]$/);
      if (label) return (label[1] === 'labels' ? meta.labels : meta.annotations)?.[label[2]!] ?? '';
      return '';
    }
  }
}

/** Kubernetes' `$(VAR)` expansion in command, args and env values; `$$` escapes a dollar. */
export function expandReferences(value: string, env: Readonly<Record<string, string>>): string {
  return value.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (match, name: string | undefined) => {
    if (match === '$$') return '$';
    return name !== undefined && name in env ? env[name]! : match;
  });
}

/** The container's environment as the kubelet would build it: envFrom, then env in order. */
export async function containerEnvironment(
  pod: V1Pod,
  container: V1Container,
  podIP: string,
  read: KeyReader,
): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  for (const source of container.envFrom ?? []) {
    const ref = source.configMapRef ?? source.secretRef;
    if (!ref?.name) continue;
    const data = await read(source.configMapRef ? 'ConfigMap' : 'Secret', ref.name);
    if (!data && !ref.optional)
      throw new Error(`${source.configMapRef ? 'configmap' : 'secret'} "${ref.name}" not found`);
    for (const [k, v] of Object.entries(data ?? {})) env[`${source.prefix ?? ''}${k}`] = v;
  }
  for (const variable of container.env ?? []) {
    const from = variable.valueFrom;
    if (!from) {
      env[variable.name] = expandReferences(variable.value ?? '', env);
    } else if (from.fieldRef) {
      env[variable.name] = fieldRef(pod, from.fieldRef.fieldPath, podIP);
    } else if (from.configMapKeyRef || from.secretKeyRef) {
      const ref = (from.configMapKeyRef ?? from.secretKeyRef)!;
      const data = await read(from.configMapKeyRef ? 'ConfigMap' : 'Secret', ref.name ?? '');
      const value = data?.[ref.key];
      if (value === undefined) {
        if (ref.optional) continue;
        throw new Error(
          `key "${ref.key}" of ${from.configMapKeyRef ? 'configmap' : 'secret'} "${ref.name}" not found`,
        );
      }
      env[variable.name] = value;
    }
  }
  return env;
}
