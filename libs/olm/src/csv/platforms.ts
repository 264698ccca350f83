import type { ClusterServiceVersion } from '../manifest/cluster-service-version.js';
import { isRecord } from '../manifest/manifest.js';
import {
  ARCH_LABEL_PREFIX,
  deploymentPodSpecs,
  type ImageOsArch,
  NODE_ARCH_LABEL,
  NODE_OS_LABEL,
  OS_LABEL_PREFIX,
} from '../validation/multiarch.js';
import { CsvError } from './errors.js';

/** What the CSV's platforms are made from: the platforms each image provides, or platforms given outright. */
export type PlatformEvidence =
  | { readonly kind: 'images'; readonly images: ReadonlyMap<string, readonly ImageOsArch[]> }
  | { readonly kind: 'given'; readonly platforms: readonly ImageOsArch[]; readonly source: string };

const key = (p: ImageOsArch): string => `${p.os}/${p.architecture}`;

/**
 * The platforms every image provides. The intersection, not the union: a Pod is scheduled whole, so a node of
 * a platform one image (the manager, or an operand the operator starts) lacks could not run the operator's
 * work, and OLM must not offer it there.
 */
export function commonPlatforms(images: ReadonlyMap<string, readonly ImageOsArch[]>): ImageOsArch[] {
  let common: ImageOsArch[] | undefined;
  for (const platforms of images.values()) {
    const keys = new Set(platforms.map(key));
    common = (common ?? uniquePlatforms(platforms)).filter((p) => keys.has(key(p)));
  }
  return common ?? [];
}

function uniquePlatforms(platforms: readonly ImageOsArch[]): ImageOsArch[] {
  const seen = new Map<string, ImageOsArch>();
  for (const p of platforms)
    if (!seen.has(key(p))) seen.set(key(p), { os: p.os, architecture: p.architecture });
  return [...seen.values()];
}

/**
 * Sets the CSV's `operatorframework.io/arch.<arch>` and `operatorframework.io/os.<os>` labels (`supported`)
 * and, on every Deployment of its install strategy, a required node affinity on `kubernetes.io/arch` and
 * `kubernetes.io/os` for the platforms `evidence` shows, so OLM lists the operator for those platforms and
 * the scheduler places its Pods only there. Labels of the base CSV are kept, and each must name a platform
 * the evidence shows; an affinity term the author wrote keeps its own `kubernetes.io/arch` and `os` expressions,
 * and gets the stated platforms' `In` beside them unless one of its `In` expressions already allows no more.
 *
 * @throws {CsvError} `OLM_CSV_INPUT_INVALID` naming each base label that the images (or the given platforms)
 *   do not provide, or when the platforms are no set of OSes × architectures the labels could state.
 */
export function setPlatforms(csv: ClusterServiceVersion, evidence: PlatformEvidence): void {
  const platforms =
    evidence.kind === 'images' ? commonPlatforms(evidence.images) : uniquePlatforms(evidence.platforms);
  const labels = { ...(csv.metadata.labels ?? {}) };
  const problems: string[] = [];
  for (const [label, value] of Object.entries(labels)) {
    if (value !== 'supported') continue;
    for (const [prefix, part] of [
      [ARCH_LABEL_PREFIX, 'architecture'],
      [OS_LABEL_PREFIX, 'os'],
    ] as const) {
      if (!label.startsWith(prefix)) continue;
      const wanted = label.slice(prefix.length);
      if (evidence.kind === 'given') {
        if (!platforms.some((p) => p[part] === wanted))
          problems.push(
            `label ${label} of the base CSV: ${wanted} is not among ${evidence.source} ${platforms.map(key).join(',')}`,
          );
        continue;
      }
      for (const [image, provided] of evidence.images) {
        if (!provided.some((p) => p[part] === wanted))
          problems.push(
            `label ${label} of the base CSV: image ${image} provides no ${wanted} (it provides ${uniquePlatforms(provided).map(key).join(', ') || 'no platform'})`,
          );
      }
    }
  }
  if (platforms.length === 0) problems.push('the images have no platform in common');
  const oses = [...new Set(platforms.map((p) => p.os))].sort();
  const archs = [...new Set(platforms.map((p) => p.architecture))].sort();
  // The labels say every OS with every architecture (the multiarch validator reads them so).
  const unstated = oses.flatMap((os) =>
    archs.filter((a) => !platforms.some((p) => p.os === os && p.architecture === a)).map((a) => `${os}/${a}`),
  );
  if (unstated.length > 0)
    problems.push(
      `the common platforms ${platforms.map(key).join(', ')} are no OSes × architectures the labels can state (${unstated.join(', ')} missing)`,
    );
  if (problems.length > 0) throw new CsvError('OLM_CSV_INPUT_INVALID', problems.join('\n'));
  for (const arch of archs) labels[`${ARCH_LABEL_PREFIX}${arch}`] = 'supported';
  for (const os of oses) labels[`${OS_LABEL_PREFIX}${os}`] = 'supported';
  csv.metadata.labels = labels;
  for (const podSpec of deploymentPodSpecs(csv)) requireNodePlatforms(podSpec, oses, archs);
}

/** `parent[key]` when it is an object, else a new empty object set there. */
function childRecord(parent: Record<string, unknown>, key: string): Record<string, unknown> {
  const existing = parent[key];
  if (isRecord(existing)) return existing;
  const created: Record<string, unknown> = {};
  parent[key] = created;
  return created;
}

/**
 * Adds `kubernetes.io/os In oses` and `kubernetes.io/arch In archs` to every required node selector term of
 * the pod (terms are alternatives, so each needs them) that does not already keep within them, or one term
 * with both when there is none.
 */
function requireNodePlatforms(podSpec: Record<string, unknown>, oses: string[], archs: string[]): void {
  const node = childRecord(childRecord(podSpec, 'affinity'), 'nodeAffinity');
  const required = childRecord(node, 'requiredDuringSchedulingIgnoredDuringExecution');
  if (!Array.isArray(required.nodeSelectorTerms) || required.nodeSelectorTerms.length === 0)
    required.nodeSelectorTerms = [{ matchExpressions: [] }];
  for (const term of (required.nodeSelectorTerms as unknown[]).filter(isRecord)) {
    if (!Array.isArray(term.matchExpressions)) term.matchExpressions = [];
    const expressions = term.matchExpressions as unknown[];
    if (!restricted(expressions, NODE_ARCH_LABEL, archs))
      expressions.push({ key: NODE_ARCH_LABEL, operator: 'In', values: [...archs] });
    if (!restricted(expressions, NODE_OS_LABEL, oses))
      expressions.push({ key: NODE_OS_LABEL, operator: 'In', values: [...oses] });
  }
}

/**
 * Whether one of a term's expressions (which all must hold) already keeps `label` within `stated`: an `In`
 * whose values are all stated. `NotIn`, `Exists` or a broader `In` still admit nodes the images cannot run on.
 */
function restricted(expressions: readonly unknown[], label: string, stated: readonly string[]): boolean {
  return expressions.some(
    (e) =>
      isRecord(e) &&
      e.key === label &&
      e.operator === 'In' &&
      Array.isArray(e.values) &&
      e.values.length > 0 &&
      e.values.every((v) => typeof v === 'string' && stated.includes(v)),
  );
}
