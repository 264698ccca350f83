import { mkdirSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import type {
  V1Container,
  V1ContainerStatus,
  V1Pod,
  V1PodCondition,
  V1PodStatus,
} from '@kubernetes/client-node';
import { KubeApiError, type KubeRest } from '../kube/rest.js';
import { ManagedProcess } from '../process/managed-process.js';
import { containerEnvironment, expandReferences, type KeyReader } from './environment.js';
import { type HostProgram, hostProgramFor, readTextFile } from './host-programs.js';
import { PathMap } from './path-map.js';
import { materializeVolume, VolumeNotReadyError } from './volumes.js';

export interface PodRunnerOptions {
  readonly rest: KubeRest;
  readonly podIP: string;
  readonly hostIP: string;
  readonly podDir: string;
  readonly read: KeyReader;
  /** First restart delay after a crash; doubles per consecutive crash up to `maxRestartBackoffMs`. */
  readonly restartBackoffMs: number;
  readonly maxRestartBackoffMs: number;
  readonly log: (message: string) => void;
}

type State = NonNullable<V1ContainerStatus['state']>;

interface ContainerRun {
  readonly spec: V1Container;
  readonly program: HostProgram | undefined;
  process?: ManagedProcess;
  port?: number;
  ready: boolean;
  restartCount: number;
  crashesInARow: number;
  startedAt?: string;
  state: State;
  lastState?: State;
  restartTimer?: NodeJS.Timeout;
}

const now = () => new Date().toISOString();

function isJobPod(pod: V1Pod): boolean {
  return (pod.metadata?.ownerReferences ?? []).some((o) => o.kind === 'Job');
}

function portIsOpen(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 500 });
    const done = (open: boolean) => {
      socket.destroy();
      resolve(open);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.once('timeout', () => done(false));
  });
}

/**
 * Plays the kubelet for one pod. Containers whose image has a host program (memcached, redis) run as real
 * processes bound to the pod IP, are restarted with back-off when they die and are Ready only while their
 * port accepts connections; other containers are reported running and ready at once, as kwok would.
 */
export class PodRunner {
  readonly #options: PodRunnerOptions;
  #pod: V1Pod;
  readonly #containers: ContainerRun[];
  readonly #conditionTimes = new Map<string, { status: string; time: string }>();
  #phase: 'Pending' | 'Running' | 'Succeeded' | 'Failed' = 'Pending';
  #podMessage: { reason?: string; message?: string } = {};
  #terminating = false;
  #stopped = false;
  #lastWritten = '';
  #writing: Promise<void> = Promise.resolve();
  #probeTimer: NodeJS.Timeout | undefined;
  #retryPublish: NodeJS.Timeout | undefined;
  #retryTimer: NodeJS.Timeout | undefined;
  readonly #startTime = now();

  constructor(pod: V1Pod, options: PodRunnerOptions) {
    this.#pod = pod;
    this.#options = options;
    this.#containers = (pod.spec?.containers ?? []).map((spec) => ({
      spec,
      program: spec.image ? hostProgramFor(spec.image) : undefined,
      ready: false,
      restartCount: 0,
      crashesInARow: 0,
      state: { waiting: { reason: 'ContainerCreating' } },
    }));
  }

  /** The pod's working directory (volumes that are not claims, logs). */
  get dir(): string {
    return this.#options.podDir;
  }

  get podIP(): string {
    return this.#options.podIP;
  }

  get isProcessBacked(): boolean {
    return this.#containers.some((c) => c.program);
  }

  /** The pid of a container's process, for tests that kill it. */
  pidOf(container?: string): number | undefined {
    const run = container
      ? this.#containers.find((c) => c.spec.name === container)
      : this.#containers.find((c) => c.program);
    return run?.process?.pid;
  }

  update(pod: V1Pod): void {
    this.#pod = pod;
  }

  async start(): Promise<void> {
    if (this.#stopped) return;
    mkdirSync(join(this.#options.podDir, 'logs'), { recursive: true });
    if (!this.isProcessBacked) {
      const jobDone = isJobPod(this.#pod) && this.#pod.spec?.restartPolicy !== 'Always';
      for (const c of this.#containers) {
        c.startedAt = now();
        c.ready = !jobDone;
        c.state = jobDone
          ? {
              terminated: {
                exitCode: 0,
                reason: 'Completed',
                startedAt: c.startedAt as never,
                finishedAt: now() as never,
              },
            }
          : { running: { startedAt: c.startedAt as never } };
      }
      this.#phase = jobDone ? 'Succeeded' : 'Running';
      this.#publish();
      return;
    }
    let mounts: PathMap;
    let env: Map<string, Record<string, string>>;
    try {
      ({ mounts, env } = await this.#prepare());
      this.#podMessage = {};
    } catch (error) {
      if (this.#stopped) return;
      const message = (error as Error).message;
      for (const c of this.#containers) c.state = { waiting: { reason: 'ContainerCreating', message } };
      this.#podMessage = {
        reason: error instanceof VolumeNotReadyError ? 'VolumeNotReady' : 'CreateContainerConfigError',
        message,
      };
      this.#publish();
      this.#retryTimer = setTimeout(() => void this.start(), 1000);
      return;
    }
    this.#phase = 'Running';
    for (const c of this.#containers) {
      if (c.program) await this.#launch(c, mounts, env.get(c.spec.name) ?? {});
      else {
        c.startedAt = now();
        c.ready = true;
        c.state = { running: { startedAt: c.startedAt as never } };
      }
    }
    this.#publish();
    this.#scheduleProbe();
  }

  async #prepare(): Promise<{ mounts: PathMap; env: Map<string, Record<string, string>> }> {
    const volumeDirs = new Map<string, string>();
    let map = new PathMap([]);
    const volumes = this.#pod.spec?.volumes ?? [];
    // Non-config volumes first, so config files can mention their paths.
    const ordered = [...volumes].sort((a, b) => Number(Boolean(a.configMap)) - Number(Boolean(b.configMap)));
    for (const volume of ordered) {
      volumeDirs.set(
        volume.name,
        await materializeVolume(
          this.#options.rest,
          this.#pod,
          volume,
          this.#options.podDir,
          this.#options.read,
          () => map,
        ),
      );
      map = this.#mountsFor(volumeDirs);
    }
    const env = new Map<string, Record<string, string>>();
    for (const c of this.#containers) {
      env.set(
        c.spec.name,
        await containerEnvironment(this.#pod, c.spec, this.#options.podIP, this.#options.read),
      );
    }
    return { mounts: this.#mountsFor(volumeDirs), env };
  }

  /** All mounts of the process containers (they share one host filesystem, so one map serves them all). */
  #mountsFor(volumeDirs: Map<string, string>): PathMap {
    const mounts: { containerPath: string; hostPath: string }[] = [];
    for (const c of this.#containers) {
      for (const m of c.spec.volumeMounts ?? []) {
        const dir = volumeDirs.get(m.name);
        if (dir)
          mounts.push({ containerPath: m.mountPath, hostPath: m.subPath ? join(dir, m.subPath) : dir });
      }
    }
    return new PathMap(mounts);
  }

  async #launch(c: ContainerRun, mounts: PathMap, env: Record<string, string>): Promise<void> {
    const program = c.program!;
    const expand = (v: string) => mounts.argument(expandReferences(v, env));
    const argv = c.spec.command?.length
      ? [...c.spec.command, ...(c.spec.args ?? [])].map(expand)
      : program.defaultArgv((c.spec.args ?? []).map(expand));
    const executable = argv[0]!.split('/').pop()!;
    if (!program.executables.includes(executable)) {
      c.state = {
        waiting: {
          reason: 'RunContainerError',
          message: `process-backed pods run ${program.executables.join(', ')} directly; '${argv[0]}' is not supported`,
        },
      };
      return;
    }
    const { args, port } = program.bindTo(argv.slice(1), this.#options.podIP, readTextFile);
    c.port = c.spec.ports?.[0]?.containerPort ?? port;
    const workDir = join(this.#options.podDir, 'containers', c.spec.name);
    mkdirSync(workDir, { recursive: true });
    const envPairs = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, mounts.text(v)]));
    c.process = new ManagedProcess({
      name: `${this.#pod.metadata?.namespace}/${this.#pod.metadata?.name}/${c.spec.name}`,
      command: program.binary,
      args,
      cwd: c.spec.workingDir ? mounts.path(c.spec.workingDir) : workDir,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: workDir,
        HOSTNAME: this.#pod.metadata?.name ?? '',
        ...envPairs,
      },
      logFile: join(this.#options.podDir, 'logs', `${c.spec.name}.log`),
    });
    await this.#run(c);
  }

  async #run(c: ContainerRun): Promise<void> {
    const proc = c.process!;
    try {
      await proc.start();
    } catch (error) {
      c.state = { waiting: { reason: 'RunContainerError', message: (error as Error).message } };
      this.#publish();
      return;
    }
    const startedAt = now();
    c.startedAt = startedAt;
    c.ready = false;
    c.state = { running: { startedAt: startedAt as never } };
    this.#publish();
    void proc.exited.then(({ code, signal }) => this.#onExit(c, startedAt, code, signal));
  }

  #onExit(c: ContainerRun, startedAt: string, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.#stopped || this.#terminating) return;
    const exitCode = code ?? 128 + (signal === 'SIGKILL' ? 9 : signal === 'SIGTERM' ? 15 : 1);
    const terminated: State = {
      terminated: {
        exitCode,
        reason: exitCode === 0 ? 'Completed' : 'Error',
        ...(signal ? { signal: { SIGKILL: 9, SIGTERM: 15, SIGINT: 2 }[signal as string] ?? 0 } : {}),
        startedAt: startedAt as never,
        finishedAt: now() as never,
      },
    };
    c.ready = false;
    c.lastState = terminated;
    const ranMs = Date.now() - Date.parse(startedAt);
    c.crashesInARow = ranMs > 30_000 ? 1 : c.crashesInARow + 1;
    const policy = this.#pod.spec?.restartPolicy ?? 'Always';
    const restart = policy === 'Always' || (policy === 'OnFailure' && exitCode !== 0);
    if (!restart) {
      c.state = terminated;
      if (this.#containers.every((x) => !x.program || x.state.terminated)) {
        this.#phase = this.#containers.every((x) => (x.state.terminated?.exitCode ?? 0) === 0)
          ? 'Succeeded'
          : 'Failed';
      }
      this.#publish();
      return;
    }
    const delay = Math.min(
      this.#options.maxRestartBackoffMs,
      this.#options.restartBackoffMs * 2 ** Math.max(0, c.crashesInARow - 1),
    );
    c.state = {
      waiting: {
        reason: 'CrashLoopBackOff',
        message: `back-off ${Math.round(delay / 1000)}s restarting failed container`,
      },
    };
    this.#options.log(`${c.process?.spec.name} exited (${signal ?? exitCode}); restarting in ${delay} ms`);
    this.#publish();
    c.restartTimer = setTimeout(() => {
      if (this.#stopped || this.#terminating) return;
      c.restartCount++;
      void this.#run(c);
    }, delay);
  }

  #scheduleProbe(): void {
    if (this.#stopped) return;
    this.#probeTimer = setTimeout(() => void this.#probe(), 300);
  }

  /** Readiness follows the process's port, as a TCP readiness probe would. */
  async #probe(): Promise<void> {
    let changed = false;
    for (const c of this.#containers) {
      if (!c.program) continue;
      const ready = Boolean(c.process?.running && c.port && (await portIsOpen(this.#options.podIP, c.port)));
      if (ready !== c.ready) {
        c.ready = ready;
        changed = true;
      }
    }
    if (changed) this.#publish();
    this.#scheduleProbe();
  }

  #condition(type: string, status: boolean): V1PodCondition {
    const value = status ? 'True' : 'False';
    const previous = this.#conditionTimes.get(type);
    const time = previous && previous.status === value ? previous.time : now();
    this.#conditionTimes.set(type, { status: value, time });
    return { type, status: value, lastTransitionTime: time as never, lastProbeTime: null as never };
  }

  #status(): V1PodStatus {
    const allReady = this.#containers.every((c) => c.ready);
    const started = this.#phase !== 'Pending';
    const containerStatuses: V1ContainerStatus[] = this.#containers.map((c) => ({
      name: c.spec.name,
      image: c.spec.image ?? '',
      imageID: '',
      containerID: c.process?.pid ? `process://${c.process.pid}` : undefined,
      ready: c.ready,
      started: Boolean(c.state.running),
      restartCount: c.restartCount,
      state: c.state,
      lastState: c.lastState ?? {},
    }));
    const ip = this.#options.podIP;
    return {
      phase: this.#phase,
      ...this.#podMessage,
      hostIP: this.#options.hostIP,
      hostIPs: [{ ip: this.#options.hostIP }],
      podIP: started ? ip : undefined,
      podIPs: started ? [{ ip }] : undefined,
      startTime: this.#startTime as never,
      conditions: [
        this.#condition('PodReadyToStartContainers', started),
        this.#condition('Initialized', true),
        this.#condition('Ready', allReady && this.#phase === 'Running'),
        this.#condition('ContainersReady', allReady && this.#phase === 'Running'),
        this.#condition('PodScheduled', true),
      ],
      initContainerStatuses: (this.#pod.spec?.initContainers ?? []).map((c) => ({
        name: c.name,
        image: c.image ?? '',
        imageID: '',
        ready: true,
        restartCount: 0,
        state: { terminated: { exitCode: 0, reason: 'Completed' } },
      })),
      containerStatuses,
    };
  }

  /** Writes the status when it changed, one write at a time. */
  #publish(): void {
    if (this.#stopped) return;
    this.#writing = this.#writing.then(async () => {
      if (this.#stopped) return;
      const status = this.#status();
      const key = JSON.stringify(status, (k, v) => (k === 'lastTransitionTime' ? undefined : v));
      if (key === this.#lastWritten) return;
      const { namespace, name } = this.#pod.metadata!;
      try {
        await this.#options.rest.request('PATCH', `/api/v1/namespaces/${namespace}/pods/${name}/status`, {
          body: { status },
          contentType: 'application/merge-patch+json',
        });
        this.#lastWritten = key;
      } catch (error) {
        if (error instanceof KubeApiError && error.status === 404) return; // the pod is gone
        this.#options.log(`status of ${namespace}/${name}: ${(error as Error).message}; retrying`);
        this.#retryPublish = setTimeout(() => this.#publish(), 1000);
      }
    });
  }

  /** Stops every process (SIGTERM, then SIGKILL after the grace period). */
  async terminate(graceSeconds: number): Promise<void> {
    this.#terminating = true;
    clearTimeout(this.#probeTimer);
    clearTimeout(this.#retryTimer);
    clearTimeout(this.#retryPublish);
    for (const c of this.#containers) clearTimeout(c.restartTimer);
    await Promise.all(this.#containers.map((c) => c.process?.stop(Math.max(0, graceSeconds) * 1000)));
    await Promise.all(this.#containers.map((c) => c.process?.close()));
  }

  /** Final stop when the pod is gone from the API or the cluster shuts down. */
  async stop(): Promise<void> {
    await this.terminate(0);
    this.#stopped = true;
    await this.#writing;
  }
}
