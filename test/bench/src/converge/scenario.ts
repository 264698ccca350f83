import type { KubeRest } from '@opkit/test-cluster';
import { type Aftermath, untilQuiet } from './aftermath.js';
import { FleetWatch } from './convergence.js';
import {
  countObjects,
  createMemcacheds,
  createNamespaces,
  DEPLOYMENTS,
  deleteMemcacheds,
  type FleetLayout,
  GUIDE_API,
  PODS,
  resizeMemcacheds,
  storeFleetVersion,
} from './fleet.js';
import { createDeploymentFor, MinimalStatusWriter } from './limit.js';
import { type OperatorCommand, OperatorProcess } from './operator-process.js';
import { type ProcessUsage, processUsage } from './process-usage.js';
import {
  apiServerConflictsByResource,
  apiServerWritesByResource,
  type RequestCounts,
  requestDelta,
  requestTotals,
} from './prometheus-text.js';

/** What a phase cost the control plane: every client's writes, by resource, and CPU by component. */
export interface ControlPlaneCost {
  /** Writes the API server answered during the phase, by `resource[/subresource]`, whoever sent them. */
  readonly writes: RequestCounts;
  readonly writesPerMemcached: number;
  /**
   * Of those writes, the ones refused with `409 Conflict`, by `resource[/subresource]`: sent with a
   * `resourceVersion` the object had moved past, so sent again after a fresh read.
   */
  readonly conflicts: RequestCounts;
  readonly conflictsPerMemcached: number;
  /** CPU seconds of each control-plane process (API server, etcd, controller-manager, scheduler, kwok). */
  readonly cpuSeconds: Readonly<Record<string, number>>;
}

/** What one phase cost the operator. */
export interface PhaseResult {
  readonly elapsedMs: number;
  /** The operator's API requests during the phase, by verb. */
  readonly requests: RequestCounts;
  readonly totalRequests: number;
  readonly writes: number;
  readonly writesPerMemcached: number;
  readonly cpuSeconds: number;
  /** The operator's VmHWM at the phase's end: the highest it has been so far, so the phase that raised it shows. */
  readonly peakRssBytes: number;
  /** The operator's VmRSS at the phase's end. */
  readonly rssBytes: number;
  readonly controlPlane: ControlPlaneCost;
  /** The operator's writes after the fleet counted as done, until it went quiet (its steady window included). */
  readonly afterwards: Aftermath;
  /** The phase's writes and those afterwards, per Memcached: what the phase cost the operator in writes. */
  readonly writesPerMemcachedUntilQuiet: number;
}

export interface SteadyResult {
  readonly seconds: number;
  readonly requests: RequestCounts;
  readonly requestsPerMinute: number;
  readonly writes: number;
  readonly cpuSeconds: number;
}

export interface OperatorRun {
  readonly operator: OperatorCommand['name'];
  readonly memcacheds: number;
  readonly namespaces: readonly string[];
  readonly create: PhaseResult;
  readonly steady: SteadyResult;
  readonly update: PhaseResult;
  readonly delete: PhaseResult;
  /** VmHWM over the operator's whole life, start-up included. */
  readonly peakRssBytes: number;
  /** CPU seconds from the first create to the last deletion. */
  readonly cpuSeconds: number;
  /** Memcached pods running (real memcached processes) after the resize. */
  readonly podsAfterUpdate: number;
}

export interface LimitRun {
  readonly memcacheds: number;
  readonly namespaces: readonly string[];
  readonly create: { readonly elapsedMs: number; readonly writes: number };
  readonly update: { readonly elapsedMs: number; readonly writes: number };
}

export interface ScenarioOptions {
  readonly rest: KubeRest;
  readonly kubeconfigPath: string;
  /** The run's Memcacheds and their namespaces, which exist only for this run. */
  readonly layout: FleetLayout;
  readonly image: string;
  readonly createSize: number;
  readonly updateSize: number;
  readonly steadySeconds: number;
  readonly quietSeconds: number;
  readonly logFile: string;
  readonly progress: (line: string) => void;
  /** Process ids of the control plane's components, for their CPU time. */
  readonly controlPlanePids: () => Readonly<Partial<Record<string, number>>>;
}

/** Generous: an operator that has not converged by then is broken, not slow. */
function timeoutFor(memcacheds: number): number {
  return 180_000 + memcacheds * 1_200;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A point in time on the operator (its request counters and /proc figures) and on the control plane (the API
 * server's write counters, its components' CPU). The control plane is read after `at`, so a phase's control
 * plane figures include what it still did while the benchmark read them; they are small beside a phase.
 */
interface Sample {
  readonly at: number;
  readonly requests: RequestCounts;
  readonly usage: ProcessUsage;
  readonly controlPlaneWrites: RequestCounts;
  readonly controlPlaneConflicts: RequestCounts;
  readonly controlPlaneCpu: Readonly<Record<string, number>>;
}

async function sample(
  operator: OperatorProcess,
  o: ScenarioOptions,
  at = performance.now(),
): Promise<Sample> {
  const requests = await operator.requestCounts();
  const usage = processUsage(operator.pid);
  const metrics = await o.rest.getText('/metrics', 60_000);
  if (metrics.status !== 200) throw new Error(`GET /metrics of the API server answered ${metrics.status}`);
  const controlPlaneCpu: Record<string, number> = {};
  for (const [component, pid] of Object.entries(o.controlPlanePids())) {
    if (pid !== undefined) controlPlaneCpu[component] = processUsage(pid).cpuSeconds;
  }
  return {
    at,
    requests,
    usage,
    controlPlaneWrites: apiServerWritesByResource(metrics.body),
    controlPlaneConflicts: apiServerConflictsByResource(metrics.body),
    controlPlaneCpu,
  };
}

type MeasuredPhase = Omit<PhaseResult, 'afterwards' | 'writesPerMemcachedUntilQuiet'>;

function phase(from: Sample, to: Sample, memcacheds: number): MeasuredPhase {
  const requests = requestDelta(from.requests, to.requests);
  const { total, writes } = requestTotals(requests);
  const controlPlaneWrites = requestDelta(from.controlPlaneWrites, to.controlPlaneWrites);
  const controlPlaneConflicts = requestDelta(from.controlPlaneConflicts, to.controlPlaneConflicts);
  const cpuSeconds: Record<string, number> = {};
  for (const [component, seconds] of Object.entries(to.controlPlaneCpu)) {
    cpuSeconds[component] = seconds - (from.controlPlaneCpu[component] ?? 0);
  }
  return {
    elapsedMs: Math.round(to.at - from.at),
    requests,
    totalRequests: total,
    writes,
    writesPerMemcached: writes / memcacheds,
    cpuSeconds: to.usage.cpuSeconds - from.usage.cpuSeconds,
    peakRssBytes: to.usage.peakRssBytes,
    rssBytes: to.usage.rssBytes,
    controlPlane: {
      writes: controlPlaneWrites,
      writesPerMemcached: requestTotals(controlPlaneWrites).total / memcacheds,
      conflicts: controlPlaneConflicts,
      conflictsPerMemcached: requestTotals(controlPlaneConflicts).total / memcacheds,
      cpuSeconds,
    },
  };
}

/**
 * Waits until the operator has made no write for `quietSeconds` after `end`, the sample at which the fleet
 * counted as done, and adds what it wrote meanwhile to the phase. The wait is as generous as a phase's.
 */
async function settled(
  operator: OperatorProcess,
  o: ScenarioOptions,
  measured: MeasuredPhase,
  end: Sample,
  memcacheds: number,
): Promise<PhaseResult> {
  const afterwards = await untilQuiet(
    () => operator.writeCount(),
    end.at,
    requestTotals(end.requests).writes,
    {
      quietMs: o.quietSeconds * 1000,
      capMs: timeoutFor(memcacheds),
      pollMs: 1000,
    },
  );
  return {
    ...measured,
    afterwards,
    writesPerMemcachedUntilQuiet: (measured.writes + afterwards.writes) / memcacheds,
  };
}

/** `quiet at once` or `1000 writes more until quiet 42.0 s later`. */
function aftermathSummary(a: Aftermath): string {
  if (a.writes === 0) return 'quiet at once';
  const until = a.capped ? 'still writing at the cap' : 'until quiet';
  return `${a.writes} writes more, ${until} ${(a.elapsedMs / 1000).toFixed(1)} s later`;
}

/** The CPU seconds of all control-plane processes together. */
export function controlPlaneCpuSeconds(cost: ControlPlaneCost): number {
  return Object.values(cost.cpuSeconds).reduce((sum, s) => sum + s, 0);
}

/**
 * `control plane 24.3 writes/CR (events 4.0, deployments/status 3.6, …; 409 Conflict 1.2), 14.4 CPU s`: the
 * costliest first.
 */
function controlPlaneSummary(cost: ControlPlaneCost, memcacheds: number): string {
  const top = Object.entries(cost.writes)
    .sort(([, a], [, b]) => b - a)
    .slice(0, 6)
    .map(([resource, n]) => `${resource} ${(n / memcacheds).toFixed(1)}`);
  const cpu = controlPlaneCpuSeconds(cost);
  const conflicts = `409 Conflict ${cost.conflictsPerMemcached.toFixed(1)}`;
  return `control plane ${cost.writesPerMemcached.toFixed(1)} writes/CR (${top.join(', ')}; ${conflicts}), ${cpu.toFixed(1)} CPU s`;
}

export const MIB = 1024 * 1024;

/**
 * `converged in 54.2 s, 4999 writes, RSS 107 MiB, peak so far 107 MiB; control plane …`: one phase of one
 * operator, for the progress log.
 */
function phaseSummary(done: string, p: MeasuredPhase, memcacheds: number): string {
  const rss = `RSS ${(p.rssBytes / MIB).toFixed(0)} MiB, peak so far ${(p.peakRssBytes / MIB).toFixed(0)} MiB`;
  return `${done} in ${(p.elapsedMs / 1000).toFixed(1)} s, ${p.writes} writes, ${rss}; ${controlPlaneSummary(p.controlPlane, memcacheds)}`;
}

/**
 * Deletes the fleet's Deployments, ReplicaSets and pods, waits until its namespaces have none left, then
 * deletes them, so the next run starts on an idle control plane.
 */
export async function retireNamespaces(
  rest: KubeRest,
  namespaces: readonly string[],
  progress: (l: string) => void,
) {
  const started = performance.now();
  // Left to the controller-manager's garbage collector, which deletes them one at a time within its client's
  // 20 requests a second, 1,000 Memcacheds' objects took 8 minutes to go. One collection delete per kind is
  // faster; Deployments first, so that none of them makes a new ReplicaSet, and ReplicaSets before pods. Best
  // effort: the API server may give up on a large collection (2,000 pods outlast a request's timeout), and
  // what it leaves, the garbage collector still removes while the loop below waits.
  for (const namespace of namespaces) {
    const collections: [string, Record<string, number>?][] = [
      [DEPLOYMENTS(namespace)],
      [`/apis/apps/v1/namespaces/${namespace}/replicasets`],
      [PODS(namespace), { gracePeriodSeconds: 0 }],
    ];
    for (const [path, query] of collections) {
      try {
        await rest.request('DELETE', path, { query, timeoutMs: 120_000 });
      } catch (error) {
        progress(
          `  ${namespace}: DELETE ${path} did not finish (${(error as Error).message}); waiting for the rest`,
        );
      }
    }
  }
  const deadline = Date.now() + 600_000;
  const where = namespaces.length === 1 ? namespaces[0] : `${namespaces.length} namespaces`;
  for (;;) {
    const pods = await countObjects(rest, namespaces, PODS);
    const deployments = await countObjects(rest, namespaces, DEPLOYMENTS);
    if (pods === 0 && deployments === 0) break;
    if (Date.now() > deadline) {
      progress(`  ${where}: ${pods} pods and ${deployments} deployments still there after 10 min; moving on`);
      break;
    }
    await sleep(2000);
  }
  for (const namespace of namespaces) await rest.request('DELETE', `/api/v1/namespaces/${namespace}`);
  progress(`  ${where}: cleaned up in ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

/**
 * One operator, fresh namespaces: create the fleet at once and wait for convergence; leave it alone for
 * `steadySeconds`; resize every Memcached; delete them all. The operator watches only these namespaces.
 */
export async function runOperator(command: OperatorCommand, o: ScenarioOptions): Promise<OperatorRun> {
  const { rest, layout } = o;
  const { namespaces, members } = layout;
  const n = members.length;
  await storeFleetVersion(rest, command.api);
  await createNamespaces(rest, namespaces);
  const fleet = new FleetWatch(rest, namespaces, o.createSize, command.api);
  const operator = await OperatorProcess.start(command, {
    kubeconfigPath: o.kubeconfigPath,
    namespaces,
    image: o.image,
    logFile: o.logFile,
  });
  try {
    // Let the operator list its (empty) namespaces and open its watches before the clock starts.
    await sleep(3000);
    const s0 = await sample(operator, o);
    await createMemcacheds(rest, members, o.createSize, command.api);
    const created = await fleet.until(
      fleet.allConverged(n),
      timeoutFor(n),
      `${command.name}: converge ${n}`,
      o.progress,
    );
    const s1 = await sample(operator, o, created);
    const converged = phase(s0, s1, n);
    o.progress(`  ${command.name} ${n}: ${phaseSummary('converged', converged, n)}`);

    const steadyStart = await sample(operator, o);
    await sleep(o.steadySeconds * 1000);
    const steadyEnd = await sample(operator, o);
    const steadyPhase = phase(steadyStart, steadyEnd, n);
    const steady: SteadyResult = {
      seconds: o.steadySeconds,
      requests: steadyPhase.requests,
      requestsPerMinute: (steadyPhase.totalRequests * 60) / o.steadySeconds,
      writes: steadyPhase.writes,
      cpuSeconds: steadyPhase.cpuSeconds,
    };
    o.progress(
      `  ${command.name} ${n}: steady ${o.steadySeconds} s: ${steadyPhase.totalRequests} requests, ${steady.writes} writes`,
    );
    const create = await settled(operator, o, converged, s1, n);
    o.progress(`  ${command.name} ${n}: after converge, ${aftermathSummary(create.afterwards)}`);

    fleet.expectSize(o.updateSize);
    const s2 = await sample(operator, o);
    await resizeMemcacheds(rest, members, o.updateSize, command.api);
    const resized = await fleet.until(
      fleet.allConverged(n),
      timeoutFor(n),
      `${command.name}: resize ${n}`,
      o.progress,
    );
    const s3 = await sample(operator, o, resized);
    const resizedPhase = phase(s2, s3, n);
    const podsAfterUpdate = await countObjects(rest, namespaces, PODS);
    o.progress(`  ${command.name} ${n}: ${phaseSummary('resized', resizedPhase, n)}`);
    const update = await settled(operator, o, resizedPhase, s3, n);
    o.progress(`  ${command.name} ${n}: after the resize, ${aftermathSummary(update.afterwards)}`);

    const s4 = await sample(operator, o);
    await deleteMemcacheds(rest, members);
    const gone = await fleet.until(
      fleet.allGone(),
      timeoutFor(n),
      `${command.name}: delete ${n}`,
      o.progress,
    );
    const s5 = await sample(operator, o, gone);
    const deleted = phase(s4, s5, n);
    o.progress(`  ${command.name} ${n}: ${phaseSummary('deleted', deleted, n)}`);
    const deletion = await settled(operator, o, deleted, s5, n);
    o.progress(`  ${command.name} ${n}: after the delete, ${aftermathSummary(deletion.afterwards)}`);
    return {
      operator: command.name,
      memcacheds: n,
      namespaces,
      create,
      steady,
      update,
      delete: deletion,
      peakRssBytes: s5.usage.peakRssBytes,
      cpuSeconds: s5.usage.cpuSeconds - s0.usage.cpuSeconds,
      podsAfterUpdate,
    };
  } finally {
    fleet.close();
    await operator.stop();
    await retireNamespaces(rest, namespaces, o.progress);
  }
}

/** The apiserver-bound limit for the same fleet: see limit.ts. */
export async function runLimit(o: ScenarioOptions): Promise<LimitRun> {
  const { rest, layout } = o;
  const { namespaces, members } = layout;
  const n = members.length;
  await storeFleetVersion(rest, GUIDE_API);
  await createNamespaces(rest, namespaces);
  const fleet = new FleetWatch(rest, namespaces, o.createSize, GUIDE_API);
  let size = o.createSize;
  const writer = new MinimalStatusWriter(rest, namespaces, () => size);
  try {
    await sleep(1000);
    const started = performance.now();
    let deploymentWrites = 0;
    const createDeployment = createDeploymentFor(rest, o.createSize, o.image);
    await createMemcacheds(rest, members, o.createSize, GUIDE_API, async (cr) => {
      deploymentWrites++;
      await createDeployment(cr);
    });
    const created = await fleet.until(
      fleet.allConverged(n),
      timeoutFor(n),
      `limit: converge ${n}`,
      o.progress,
    );
    writer.check();
    const create = { elapsedMs: Math.round(created - started), writes: deploymentWrites + writer.writes };
    o.progress(
      `  limit ${n}: converged in ${(create.elapsedMs / 1000).toFixed(1)} s, ${create.writes} writes`,
    );

    size = o.updateSize;
    fleet.expectSize(o.updateSize);
    const resizeStarted = performance.now();
    let resizeWrites = 0;
    await resizeMemcacheds(rest, members, o.updateSize, GUIDE_API, async ({ namespace, name }) => {
      resizeWrites++;
      await rest.request('PATCH', `${DEPLOYMENTS(namespace)}/${name}`, {
        body: { spec: { replicas: o.updateSize } },
        contentType: 'application/merge-patch+json',
      });
    });
    const resized = await fleet.until(fleet.allConverged(n), timeoutFor(n), `limit: resize ${n}`, o.progress);
    const update = { elapsedMs: Math.round(resized - resizeStarted), writes: resizeWrites };
    o.progress(`  limit ${n}: resized in ${(update.elapsedMs / 1000).toFixed(1)} s, ${update.writes} writes`);
    await deleteMemcacheds(rest, members);
    return { memcacheds: n, namespaces, create, update };
  } finally {
    fleet.close();
    writer.close();
    await retireNamespaces(rest, namespaces, o.progress);
  }
}
