// `nx run bench:converge`: our Memcached operator against the kubebuilder guide's controller on
// controller-runtime (test/bench/go/memcached-baseline), with `--same-objects` also against that controller
// keeping the objects ours keeps, and against the apiserver-bound limit, on one local
// control plane. Per fleet size and run: converge N Memcacheds created at once, 60 s of steady state, resize
// them all, delete them all — with the operator's API requests, CPU time and peak RSS.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeRest, type LocalCluster, startCluster } from '@opkit/test-cluster';
import { memcachedBaselineBinary } from './converge/baseline-binary.js';
import { fleetLayout, installFleetCrd } from './converge/fleet.js';
import { baselineOperator, bundleOpkitOperator, type OperatorCommand } from './converge/operator-process.js';
import { type ConvergeOptions, parseConvergeOptions } from './converge/options.js';
import { type LimitRun, type OperatorRun, runLimit, runOperator } from './converge/scenario.js';
import { convergeMetrics, convergeRatios, formatRatios } from './converge/summary.js';
import { formatMachine, machineInfo } from './machine.js';
import { formatTable, writeJson } from './report.js';

const RESULT_FILE = join(import.meta.dirname, '..', 'results', 'converge.json');

const log = (line: string) => process.stderr.write(`${line}\n`);

async function main(options: ConvergeOptions): Promise<void> {
  const startedAt = new Date();
  const machine = machineInfo();
  const scratch = mkdtempSync(join(tmpdir(), 'opkit-bench-converge-'));
  const logDir = join(scratch, 'logs');
  mkdirSync(logDir);
  let cluster: LocalCluster | undefined;
  let rest: KubeRest | undefined;
  const operatorRuns: OperatorRun[] = [];
  const limitRuns: LimitRun[] = [];
  let kubernetesVersion = 'unknown';
  // Rewritten after every run, marked incomplete until the end, so a long run that fails keeps what it measured.
  const writeResults = (complete: boolean) => {
    const metrics = convergeMetrics(options.sizes, operatorRuns, limitRuns);
    const ratios = convergeRatios(options.sizes, metrics);
    const finishedAt = new Date();
    writeJson(RESULT_FILE, {
      schemaVersion: 1,
      benchmark: 'converge',
      complete,
      startedAt: startedAt.toISOString(),
      finishedAt: finishedAt.toISOString(),
      durationSeconds: (finishedAt.getTime() - startedAt.getTime()) / 1000,
      machine,
      cluster: { nodes: options.nodes, kubernetesVersion, controlPlaneQps: options.controlPlaneQps ?? null },
      config: options,
      metrics,
      ratios,
      runs: { operators: operatorRuns, limit: limitRuns },
    });
    return { metrics, ratios };
  };
  try {
    const baselineBinary = await memcachedBaselineBinary(log);
    const operators: OperatorCommand[] = [
      await bundleOpkitOperator(scratch, options.nodeOptions),
      ...(options.alsoWithoutApply
        ? [await bundleOpkitOperator(scratch, options.nodeOptions, { withoutApply: true })]
        : []),
      baselineOperator(baselineBinary),
      ...(options.sameObjects ? [baselineOperator(baselineBinary, { sameObjects: true })] : []),
    ];
    log(`starting a ${options.nodes}-node cluster`);
    cluster = await startCluster({
      realNode: false,
      nodes: options.nodes,
      ...(options.controlPlaneQps === undefined ? {} : { controlPlaneQps: options.controlPlaneQps }),
      onProgress: (line) => log(`cluster: ${line}`),
    });
    rest = new KubeRest(cluster.kubeConfig);
    kubernetesVersion =
      (await rest.request<{ gitVersion?: string }>('GET', '/version')).gitVersion ?? 'unknown';
    await installFleetCrd(rest);

    for (const [i, n] of options.sizes.entries()) {
      const runs = options.runs[i]!;
      for (let run = 1; run <= runs; run++) {
        log(`${n} Memcacheds, run ${run} of ${runs}`);
        const base = {
          rest,
          kubeconfigPath: cluster.kubeconfigPath,
          image: options.image,
          createSize: options.createSize,
          updateSize: options.updateSize,
          steadySeconds: options.steadySeconds,
          quietSeconds: options.quietSeconds,
          progress: log,
          controlPlanePids: () => cluster?.componentPids() ?? {},
        };
        // Alternate who goes first, so neither always meets the control plane fresher.
        const order = run % 2 === 1 ? operators : [...operators].reverse();
        for (const command of order) {
          const namespace = `bench-${command.name}-${n}-${run}`;
          const layout = fleetLayout(namespace, options.namespaces, n);
          operatorRuns.push(
            await runOperator(command, { ...base, layout, logFile: join(logDir, `${namespace}.log`) }),
          );
          writeResults(false);
        }
        if (options.limit) {
          const namespace = `bench-limit-${n}-${run}`;
          const layout = fleetLayout(namespace, options.namespaces, n);
          limitRuns.push(await runLimit({ ...base, layout, logFile: join(logDir, `${namespace}.log`) }));
          writeResults(false);
        }
      }
    }
  } catch (error) {
    log(`operator logs are kept in ${logDir}`);
    throw error;
  } finally {
    rest?.close();
    if (cluster) {
      log('stopping the cluster');
      await cluster.stop();
    }
  }
  rmSync(scratch, { recursive: true, force: true });

  const { metrics, ratios } = writeResults(true);
  process.stdout.write(
    `\n${formatMachine(machine)}\nKubernetes: ${kubernetesVersion} (local, ${options.nodes} nodes)\n\n`,
  );
  process.stdout.write(
    `${formatTable(metrics)}\n\n${formatRatios(ratios)}\n\nResults written to ${RESULT_FILE}\n`,
  );
}

// An interrupted run still runs the exit hooks that stop the operator; the cluster's processes follow their parent.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

try {
  await main(parseConvergeOptions(process.argv.slice(2)));
} catch (error) {
  process.stderr.write(`bench:converge failed: ${(error as Error).message}\n`);
  process.exitCode = 1;
}
