import { parseArgs } from 'node:util';
import { OPERATOR_NODE_OPTIONS } from '@opkit/controller-runtime/manager';

/** What `nx run bench:converge` measures, from its command line. */
export interface ConvergeOptions {
  /** Fleet sizes: how many Memcacheds are created at once. */
  readonly sizes: readonly number[];
  /** Measured runs per operator, for each size in `sizes` (same order). */
  readonly runs: readonly number[];
  /** Length of the steady-state window. */
  readonly steadySeconds: number;
  /**
   * After each phase, how long the operator must make no write before its writes for that phase are counted
   * (see aftermath.ts).
   */
  readonly quietSeconds: number;
  /** Image of the memcached pods; any image named memcached runs as a real memcached process. */
  readonly image: string;
  /** `spec.size` at creation, and after the mass update. */
  readonly createSize: number;
  readonly updateSize: number;
  /** Fake nodes of the cluster. */
  readonly nodes: number;
  /**
   * Namespaces each fleet is dealt over (round-robin). One puts thousands of Memcacheds, and their Services,
   * PodDisruptionBudgets and pods, in one namespace, where the controller-manager's and the scheduler's
   * per-namespace lookups grow with the fleet.
   */
  readonly namespaces: number;
  /** Also measure the apiserver-bound limit. */
  readonly limit: boolean;
  /**
   * Also measure the guide's controller keeping the objects our operator keeps besides the Deployment
   * (headless Service, PodDisruptionBudget, topology spread): equal work for the control plane.
   */
  readonly sameObjects: boolean;
  /**
   * Also measure our operator with its owned objects written by create and JSON merge patch instead of
   * server-side apply (a trial: what apply costs the API server).
   */
  readonly alsoWithoutApply: boolean;
  /** Flags for node before our operator's bundle: those the operator image gives it, unless tried otherwise. */
  readonly nodeOptions: readonly string[];
  /**
   * The controller-manager's and the scheduler's client rate limit (requests/s; burst twice that), or
   * `undefined` for their own defaults (20 and 50), which set the pace of converge and resize.
   */
  readonly controlPlaneQps: number | undefined;
}

export const DEFAULT_CONVERGE_OPTIONS: ConvergeOptions = {
  sizes: [100, 1000],
  // A run of 1,000 takes about 40 minutes on 2 cores (see the README); 3 of them are `--runs 3`.
  runs: [3, 1],
  steadySeconds: 60,
  quietSeconds: 10,
  image: 'docker.io/library/memcached:1.6',
  createSize: 1,
  updateSize: 2,
  nodes: 3,
  namespaces: 1,
  limit: true,
  sameObjects: false,
  alsoWithoutApply: false,
  nodeOptions: OPERATOR_NODE_OPTIONS,
  controlPlaneQps: undefined,
};

/**
 * `--quick`: one run of a few hundred Memcacheds with a short steady window, for everyday use (under 10
 * minutes on 2 cores). Flags given beside it override it.
 */
export const QUICK_CONVERGE_OPTIONS: Pick<ConvergeOptions, 'sizes' | 'runs' | 'steadySeconds'> = {
  sizes: [200],
  runs: [1],
  steadySeconds: 20,
};

export class ConvergeOptionsError extends Error {}

function integer(flag: string, text: string, min: number, max: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConvergeOptionsError(`--${flag}: expected a whole number from ${min} to ${max}, got "${text}"`);
  }
  return value;
}

/** Parses the flags; throws {@link ConvergeOptionsError} naming the flag and the reason. */
export function parseConvergeOptions(argv: readonly string[]): ConvergeOptions {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    throw new ConvergeOptionsError((error as Error).message);
  }
  const v = parsed.values;
  const d: ConvergeOptions = v.quick
    ? { ...DEFAULT_CONVERGE_OPTIONS, ...QUICK_CONVERGE_OPTIONS }
    : DEFAULT_CONVERGE_OPTIONS;
  const sizes =
    v.sizes === undefined ? d.sizes : v.sizes.split(',').map((s) => integer('sizes', s, 1, 100_000));
  // Memcached's CRD bounds spec.size to 1–3.
  const createSize =
    v['create-size'] === undefined ? d.createSize : integer('create-size', v['create-size'], 1, 3);
  const updateSize =
    v['update-size'] === undefined ? d.updateSize : integer('update-size', v['update-size'], 1, 3);
  if (createSize === updateSize) {
    throw new ConvergeOptionsError(`--update-size must differ from --create-size (both ${createSize})`);
  }
  const namespaces = v.namespaces === undefined ? d.namespaces : integer('namespaces', v.namespaces, 1, 1000);
  if (namespaces > Math.min(...sizes)) {
    throw new ConvergeOptionsError(
      `--namespaces: ${namespaces} namespaces would leave some empty in a fleet of ${Math.min(...sizes)}`,
    );
  }
  const image = v.image ?? d.image;
  if (image.trim().length === 0) throw new ConvergeOptionsError('--image: must not be empty');
  return {
    sizes,
    runs: parseRuns(v.runs, sizes, v.sizes === undefined ? d.runs : undefined),
    steadySeconds:
      v['steady-seconds'] === undefined
        ? d.steadySeconds
        : integer('steady-seconds', v['steady-seconds'], 1, 3600),
    quietSeconds:
      v['quiet-seconds'] === undefined
        ? d.quietSeconds
        : integer('quiet-seconds', v['quiet-seconds'], 1, 600),
    image,
    createSize,
    updateSize,
    nodes: v.nodes === undefined ? d.nodes : integer('nodes', v.nodes, 1, 20),
    namespaces,
    limit: !v['skip-limit'],
    sameObjects: v['same-objects'] ?? d.sameObjects,
    alsoWithoutApply: v['also-without-apply'] ?? d.alsoWithoutApply,
    nodeOptions: v['node-options'] === undefined ? d.nodeOptions : nodeFlags(v['node-options']),
    controlPlaneQps:
      v['control-plane-qps'] === undefined
        ? d.controlPlaneQps
        : integer('control-plane-qps', v['control-plane-qps'], 1, 100_000),
  };
}

/** `--node-options "--max-semi-space-size=2 --optimize-for-size"`: node's own flags, each starting with `--`. */
function nodeFlags(text: string): string[] {
  const flags = text.split(/\s+/).filter((flag) => flag !== '');
  const stray = flags.find((flag) => !flag.startsWith('--'));
  if (stray !== undefined) {
    throw new ConvergeOptionsError(`--node-options: expected node flags starting with --, got "${stray}"`);
  }
  return flags;
}

/**
 * `--runs 3` (every size) or `--runs 100:3,1000:1` (per size; every size needs an entry). Without the flag:
 * the preset's runs for the preset's sizes, else 3.
 */
function parseRuns(
  text: string | undefined,
  sizes: readonly number[],
  presetRuns: readonly number[] | undefined,
): number[] {
  if (text === undefined) return presetRuns ? [...presetRuns] : sizes.map(() => 3);
  if (!text.includes(':')) {
    const runs = integer('runs', text, 1, 100);
    return sizes.map(() => runs);
  }
  const perSize = new Map<number, number>();
  for (const entry of text.split(',')) {
    const [size, runs, extra] = entry.split(':');
    if (size === undefined || runs === undefined || extra !== undefined) {
      throw new ConvergeOptionsError(`--runs: expected <size>:<runs>, got "${entry}"`);
    }
    perSize.set(integer('runs', size, 1, 100_000), integer('runs', runs, 1, 100));
  }
  return sizes.map((size) => {
    const runs = perSize.get(size);
    if (runs === undefined) throw new ConvergeOptionsError(`--runs: no entry for size ${size} of --sizes`);
    return runs;
  });
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    options: {
      sizes: { type: 'string' },
      runs: { type: 'string' },
      'steady-seconds': { type: 'string' },
      'quiet-seconds': { type: 'string' },
      image: { type: 'string' },
      'create-size': { type: 'string' },
      'update-size': { type: 'string' },
      nodes: { type: 'string' },
      namespaces: { type: 'string' },
      'skip-limit': { type: 'boolean' },
      'same-objects': { type: 'boolean' },
      'also-without-apply': { type: 'boolean' },
      'node-options': { type: 'string' },
      'control-plane-qps': { type: 'string' },
      quick: { type: 'boolean' },
    },
  });
}
