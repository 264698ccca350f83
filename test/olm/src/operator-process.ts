import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { KubeRest, LocalCluster } from '@opkit/test-cluster';
import { eventually } from '@opkit/test-cluster/vitest';
import type { Deployment } from './kube-types.js';
import { writeServiceAccountKubeconfig } from './service-account.js';

/** A free loopback TCP port. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.once('error', reject);
  });
}

/** An operator's manager running as a local process, the way its Deployment would run it in a pod. */
export interface OperatorProcess {
  readonly pid: number;
  /** Everything the operator wrote to stdout and stderr so far. */
  log(): string;
  stop(): Promise<void>;
}

type Container = Deployment['spec']['template']['spec']['containers'][number];

/** The container's environment as the kubelet would give it: literal values and downward-API fields. */
function containerEnvironment(
  container: Container,
  pod: { readonly namespace: string; readonly annotations: Readonly<Record<string, string>> },
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const variable of container.env ?? []) {
    const field = variable.valueFrom?.fieldRef?.fieldPath;
    if (field === undefined) env[variable.name] = variable.value ?? '';
    else if (field === 'metadata.namespace') env[variable.name] = pod.namespace;
    else {
      const annotation = /^metadata\.annotations\['(.+)'\]$/.exec(field)?.[1];
      if (annotation === undefined) throw new Error(`env ${variable.name}: unsupported fieldRef ${field}`);
      env[variable.name] = pod.annotations[annotation] ?? '';
    }
  }
  return env;
}

/**
 * Starts the operator's TypeScript entry point with the args and environment of the Deployment's manager
 * container (as OLM created it) and the given kubeconfig. The bind addresses become loopback ports of their own
 * (OLM's processes hold :8080 on this host), and the process counts as started when /readyz answers.
 */
export async function runOperatorAsDeployment(options: {
  readonly deployment: Deployment;
  readonly entryPoint: string;
  readonly kubeconfigPath: string;
  readonly logPath: string;
}): Promise<OperatorProcess> {
  const { deployment } = options;
  const template = deployment.spec.template;
  const container = template.spec.containers.find((c) => c.name === 'manager') ?? template.spec.containers[0];
  if (!container) throw new Error(`Deployment ${deployment.metadata.name} has no containers`);
  const env = containerEnvironment(container, {
    namespace: deployment.metadata.namespace ?? 'default',
    annotations: { ...deployment.metadata.annotations, ...template.metadata?.annotations },
  });
  const probePort = await freePort();
  const args = (container.args ?? []).filter(
    (arg) => !arg.startsWith('--metrics-bind-address') && !arg.startsWith('--health-probe-bind-address'),
  );
  const { KUBECONFIG: _ignored, ...parentEnv } = process.env;
  const child: ChildProcess = spawn(
    process.execPath,
    [
      '--conditions=@opkit/source',
      '--import',
      'tsx',
      options.entryPoint,
      ...args,
      '--metrics-bind-address=0',
      `--health-probe-bind-address=127.0.0.1:${probePort}`,
      `--kubeconfig=${options.kubeconfigPath}`,
    ],
    { env: { ...parentEnv, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const logFile = createWriteStream(options.logPath);
  child.stdout?.pipe(logFile, { end: false });
  child.stderr?.pipe(logFile, { end: false });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const operator: OperatorProcess = {
    pid: child.pid ?? -1,
    log: () => readFileSync(options.logPath, 'utf8'),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      logFile.end();
    },
  };
  await eventually(
    `the operator to report ready on 127.0.0.1:${probePort}`,
    async () => {
      if (child.exitCode !== null) {
        throw new Error(`the operator exited with ${child.exitCode}:\n${operator.log().slice(-2000)}`);
      }
      const response = await fetch(`http://127.0.0.1:${probePort}/readyz`);
      return response.ok;
    },
    { timeoutMs: 60_000, intervalMs: 250 },
  );
  return operator;
}

/**
 * Runs an operator that OLM installed: its Deployment's manager container, started from our sources,
 * authenticated with a fresh token of the Deployment's ServiceAccount.
 */
export async function runInstalledOperator(options: {
  readonly cluster: LocalCluster;
  readonly rest: KubeRest;
  readonly namespace: string;
  readonly deployment: string;
  readonly entryPoint: string;
  /** Names the kubeconfig and log files in the cluster's directory. */
  readonly label: string;
}): Promise<OperatorProcess> {
  const { cluster, rest, namespace, label } = options;
  const deployment = await rest.request<Deployment>(
    'GET',
    `/apis/apps/v1/namespaces/${namespace}/deployments/${options.deployment}`,
  );
  const serviceAccount = deployment.spec.template.spec.serviceAccountName;
  if (!serviceAccount)
    throw new Error(`Deployment ${namespace}/${options.deployment} names no ServiceAccount`);
  const kubeconfigPath = join(cluster.dir, `${label}.kubeconfig`);
  await writeServiceAccountKubeconfig({
    rest,
    admin: cluster.kubeConfig,
    namespace,
    serviceAccount,
    path: kubeconfigPath,
  });
  return runOperatorAsDeployment({
    deployment,
    entryPoint: options.entryPoint,
    kubeconfigPath,
    logPath: join(cluster.dir, `${label}.log`),
  });
}

/** Adds the operator's last log lines to a failure, since the reason is usually there. */
export async function explainedBy<T>(operator: OperatorProcess, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    (error as Error).message +=
      `\noperator log (last lines):\n${operator.log().split('\n').slice(-30).join('\n')}`;
    throw error;
  }
}
