import { isRunnablePlatform } from '@opkit/oci/runnable-platform';
import { goQuote, goQuoteSlice, goStringSlice, sortInByteOrder } from '../go-compat/go-format.js';
import type { ClusterServiceVersion } from '../manifest/cluster-service-version.js';
import { isRecord } from '../manifest/manifest.js';
import type { OptionalValues, ValidationBundle } from './bundle-model.js';
import {
  errFailedValidation,
  errInvalidBundle,
  type ManifestResult,
  manifestResult,
  type ValidationError,
  warnFailedValidation,
} from './result.js';

/** A platform as the multi-arch checks compare them: os and architecture (a variant is not looked at). */
export interface ImageOsArch {
  readonly os: string;
  readonly architecture: string;
}

/** What reading one image gave: the platforms it provides, or why it could not be read (one line). */
export type ImageInspection = { readonly platforms: readonly ImageOsArch[] } | { readonly error: string };

/** The inspection of each image the validator names (see {@link multiArchImages}); read beforehand. */
export type ImageInspector = (image: string) => ImageInspection;

/** `--optional-values` key of the Go validator: the container tool it runs. opkit runs none. */
export const CONTAINER_TOOLS_KEY = 'container-tools';
/** CSV label prefix of a supported architecture: `operatorframework.io/arch.<arch>: supported`. */
export const ARCH_LABEL_PREFIX = 'operatorframework.io/arch.';
/** CSV label prefix of a supported OS: `operatorframework.io/os.<os>: supported`. */
export const OS_LABEL_PREFIX = 'operatorframework.io/os.';
/** Node label of a node's architecture, as the kubelet sets it. */
export const NODE_ARCH_LABEL = 'kubernetes.io/arch';
/** Node label of a node's OS, as the kubelet sets it. */
export const NODE_OS_LABEL = 'kubernetes.io/os';

/** The container operator-sdk scaffolds beside the manager; never taken for the manager. */
const RBAC_PROXY_CONTAINER = 'kube-rbac-proxy';
/** How a failed inspection is marked among an image's platforms, as the Go validator marks it. */
const INSPECT_FAILED: ImageOsArch = { os: 'error', architecture: 'error' };

/** The CSV's images as the Go validator groups them. Maps keep first-seen order. */
interface CsvImages {
  readonly manager: Map<string, ImageOsArch[]>;
  readonly managerNames: string[];
  readonly other: Map<string, ImageOsArch[]>;
  readonly related: Map<string, ImageOsArch[]>;
  /** Each deployment image's node-affinity platforms. */
  readonly affinity: Map<string, ImageOsArch[]>;
}

/**
 * The pod spec of each Deployment of the CSV's install strategy, as the CSV holds it (a Deployment without one
 * has no containers to place and is left out): what the validator reads and the platform step writes into.
 */
export function deploymentPodSpecs(csv: ClusterServiceVersion): Record<string, unknown>[] {
  const install: unknown = csv.spec?.install;
  const spec = isRecord(install) && isRecord(install.spec) ? install.spec : {};
  const deployments = Array.isArray(spec.deployments) ? spec.deployments.filter(isRecord) : [];
  return deployments.flatMap((d) => {
    const template = isRecord(d.spec) && isRecord(d.spec.template) ? d.spec.template : {};
    return isRecord(template.spec) ? [template.spec] : [];
  });
}

function containersOf(podSpec: Record<string, unknown>): { name: string; image: string }[] {
  const list = Array.isArray(podSpec.containers) ? podSpec.containers.filter(isRecord) : [];
  return list.map((c) => ({
    name: typeof c.name === 'string' ? c.name : '',
    image: typeof c.image === 'string' ? c.image : '',
  }));
}

const stringList = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];

/**
 * The platforms a pod's required node affinity allows: per selector term, every OS of its `kubernetes.io/os In`
 * expression with every architecture of its `kubernetes.io/arch In` expression (a term that lacks either
 * allows none).
 */
export function nodeAffinityPlatforms(podSpec: Record<string, unknown>): ImageOsArch[] {
  const affinity = isRecord(podSpec.affinity) ? podSpec.affinity : {};
  const node = isRecord(affinity.nodeAffinity) ? affinity.nodeAffinity : {};
  const required = isRecord(node.requiredDuringSchedulingIgnoredDuringExecution)
    ? node.requiredDuringSchedulingIgnoredDuringExecution
    : {};
  const platforms: ImageOsArch[] = [];
  for (const term of Array.isArray(required.nodeSelectorTerms) ? required.nodeSelectorTerms : []) {
    if (!isRecord(term)) continue;
    let arches: string[] = [];
    let oses: string[] = [];
    for (const e of Array.isArray(term.matchExpressions) ? term.matchExpressions.filter(isRecord) : []) {
      if (e.operator !== 'In') continue;
      if (e.key === NODE_ARCH_LABEL) arches = stringList(e.values);
      else if (e.key === NODE_OS_LABEL) oses = stringList(e.values);
    }
    for (const os of oses) for (const architecture of arches) platforms.push({ os, architecture });
  }
  return platforms;
}

/**
 * The manager images (containers named `manager`; in a deployment without one, every container but
 * `kube-rbac-proxy`), the other deployment images and `spec.relatedImages`, as the Go validator collects them.
 */
function csvImages(csv: ClusterServiceVersion): CsvImages {
  const manager = new Map<string, ImageOsArch[]>();
  const managerNames: string[] = [];
  const affinity = new Map<string, ImageOsArch[]>();
  const specs = deploymentPodSpecs(csv);
  for (const podSpec of specs) {
    let foundManager = false;
    for (const c of containersOf(podSpec)) {
      if (manager.has(c.image)) continue;
      if (c.name === 'manager') {
        manager.set(c.image, []);
        managerNames.push(c.image);
        foundManager = true;
      }
      affinity.set(c.image, nodeAffinityPlatforms(podSpec));
    }
    if (foundManager) continue;
    for (const c of containersOf(podSpec)) {
      if (c.name === RBAC_PROXY_CONTAINER || manager.has(c.image)) continue;
      manager.set(c.image, []);
      managerNames.push(c.image);
    }
  }
  const other = new Map<string, ImageOsArch[]>();
  for (const podSpec of specs)
    for (const c of containersOf(podSpec)) if (!manager.has(c.image)) other.set(c.image, []);
  const related = new Map<string, ImageOsArch[]>();
  const relatedImages = Array.isArray(csv.spec?.relatedImages) ? csv.spec.relatedImages : [];
  for (const r of relatedImages) related.set(isRecord(r) && typeof r.image === 'string' ? r.image : '', []);
  return { manager, managerNames, other, related, affinity };
}

/** Every image the multi-arch validator inspects, once each, in the order it inspects them. */
export function multiArchImages(csv: ClusterServiceVersion): string[] {
  const images = csvImages(csv);
  return [...new Set([...images.manager.keys(), ...images.other.keys(), ...images.related.keys()])];
}

/** The values of the CSV's `<prefix><value>: supported` labels, in byte order of the label keys. */
function labelValues(csv: ClusterServiceVersion, prefix: string): { keys: string[]; values: string[] } {
  const labels = csv.metadata?.labels ?? {};
  const keys = sortInByteOrder(
    Object.keys(labels).filter((k) => k.includes(prefix) && labels[k] === 'supported'),
  );
  return { keys, values: keys.map((k) => k.replaceAll(prefix, '')) };
}

const formatOsArch = (p: ImageOsArch): string => `${p.os}/${p.architecture}`;

/**
 * operator-framework/api's `MultipleArchitecturesValidator` (`name=multiarch`), on images read beforehand by
 * `inspect`: the CSV's `operatorframework.io/arch.*` / `os.*` labels (none: linux/amd64) against the
 * platforms of the manager images, the other deployment images and the related images, and the deployments'
 * required node affinity (`kubernetes.io/arch`, `kubernetes.io/os`) against the images' platforms. Same
 * checks, messages and levels: an error per labelled platform that some image lacks; warnings for an image
 * that could not be read (its platforms then count as unknown), labels missing for what the manager images
 * provide, images lacking what the manager provides, and node affinity missing or unlike the images.
 *
 * Where the Go validator walks maps (in random order), the order here is fixed: labelled platforms and
 * images by first appearance in the CSV, labels in byte order.
 */
export function validateMultiArch(
  bundle: ValidationBundle,
  inspect: ImageInspector,
  values: OptionalValues = {},
): ManifestResult {
  const result = manifestResult(bundle.name);
  const csv = bundle.csv;
  if (csv === undefined) {
    result.errors.push(errInvalidBundle('bundle csv is nil', bundle.name));
    return result;
  }
  const csvName = csv.metadata?.name ?? '';
  const tool = (values[CONTAINER_TOOLS_KEY] ?? '').toLowerCase();
  if (!['', 'none', 'docker', 'podman'].includes(tool)) {
    result.errors.push(
      errFailedValidation(
        `invalid value (${CONTAINER_TOOLS_KEY}) for (${tool}). One of: [docker, podman, none] (If not set, the default value is docker)`,
        csvName,
      ),
    );
    return result;
  }
  const warns: string[] = [];
  const errors: string[] = [];
  const arch = labelValues(csv, ARCH_LABEL_PREFIX);
  const os = labelValues(csv, OS_LABEL_PREFIX);
  const images = csvImages(csv);
  for (const group of [images.manager, images.other, images.related]) {
    for (const image of group.keys()) {
      const inspection = inspect(image);
      if ('error' in inspection) {
        warns.push(`unable to inspect the image (${image}) : ${inspection.error}`);
        group.set(image, [INSPECT_FAILED]);
        continue;
      }
      // As the Go validator filters `manifest inspect`: attestations and platforms without os or architecture.
      group.set(image, inspection.platforms.filter(isRunnablePlatform));
    }
  }
  // What the operator supports, as far as can be told: the labels (none: amd64, linux) and the manager images.
  const managerArchs = new Set(arch.values.length > 0 ? arch.values : ['amd64']);
  const managerOses = new Set(os.values.length > 0 ? os.values : ['linux']);
  for (const platforms of images.manager.values()) {
    for (const p of platforms) {
      if (p.architecture !== '') managerArchs.add(p.architecture);
      if (p.os !== '') managerOses.add(p.os);
    }
  }
  errors.push(...unsupportedLabelledPlatforms(arch.values, os.values, images));
  warns.push(
    ...missingLabels(managerArchs, arch.keys, 'amd64', 'Arch', ARCH_LABEL_PREFIX, images.managerNames),
  );
  warns.push(...missingLabels(managerOses, os.keys, 'linux', 'OS', OS_LABEL_PREFIX, images.managerNames));
  for (const group of [images.other, images.related]) {
    warns.push(...lackingManagerSupport(group, managerArchs, managerOses, images.managerNames));
  }
  for (const group of [images.manager, images.other]) warns.push(...affinityProblems(group, images.affinity));
  const found: ValidationError[] = [
    ...warns.map((w) => warnFailedValidation(w, csvName)),
    ...errors.map((e) => errFailedValidation(e, csvName)),
  ];
  result.errors.push(...found);
  return result;
}

/** `checkSupportDefined`: each labelled `os.arch` (none: linux, amd64) that some image does not provide. */
function unsupportedLabelledPlatforms(archs: string[], oses: string[], images: CsvImages): string[] {
  const configured: string[] = [];
  for (const os of oses.length > 0 ? oses : ['linux'])
    for (const arch of archs.length > 0 ? archs : ['amd64']) configured.push(`${os}.${arch}`);
  const unsupported = new Map<string, string[]>();
  for (const group of [images.manager, images.other, images.related]) {
    for (const config of configured) {
      for (const [image, platforms] of group) {
        const provided = platforms.some((p) => p.os === 'error' || config === `${p.os}.${p.architecture}`);
        if (!provided) unsupported.set(config, [...(unsupported.get(config) ?? []), image]);
      }
    }
  }
  return configured.flatMap((config) => {
    const lacking = unsupported.get(config);
    return lacking === undefined
      ? []
      : [
          `not all images specified are providing the support described via the CSV labels. Note that (OS.architecture): (${config}) was not found for the image(s) ${goStringSlice(sortInByteOrder(lacking))}`,
        ];
  });
}

/** `checkMissingLabelsForArchs` / `…ForOS`: what the operator provides without a label saying so. */
function missingLabels(
  supported: ReadonlySet<string>,
  labelKeys: readonly string[],
  implied: 'amd64' | 'linux',
  what: 'Arch' | 'OS',
  prefix: string,
  managerImages: readonly string[],
): string[] {
  const missing = sortInByteOrder(
    [...supported].filter(
      (value) =>
        value !== 'error' &&
        // The Go validator matches a label by substring.
        !labelKeys.some((key) => key.includes(value)) &&
        !(value === implied && supported.size === 1),
    ),
  );
  if (missing.length === 0) return [];
  const more =
    what === 'Arch'
      ? 'if you support more than amd64 architectures, you MUST,'
      : 'if you support more than linux OS you MUST,';
  return [
    `check if the CSV is missing the label (${prefix}<value>) for the ${what}(s): ${goQuoteSlice(missing)}. Be aware that your Operator manager image ${goQuoteSlice(managerImages)} provides this support. Thus, it is very likely that you want to provide it and ${more}use the required labels for all which are supported.Otherwise, your solution cannot be listed on the cluster for these architectures`,
  ];
}

/** `checkMissingSupportForOtherImages`: an image lacking an architecture or OS the operator supports. */
function lackingManagerSupport(
  group: ReadonlyMap<string, readonly ImageOsArch[]>,
  managerArchs: ReadonlySet<string>,
  managerOses: ReadonlySet<string>,
  managerImages: readonly string[],
): string[] {
  const warns: string[] = [];
  for (const [image, platforms] of group) {
    for (const [what, supported, part] of [
      ['Arch', managerArchs, 'architecture'],
      ['OS', managerOses, 'os'],
    ] as const) {
      const lacking = sortInByteOrder(
        [...supported].filter(
          (value) => value !== 'error' && !platforms.some((p) => p[part] === 'error' || p[part] === value),
        ),
      );
      if (lacking.length === 0) continue;
      warns.push(
        `check if the image ${image} should not support ${goQuoteSlice(lacking)}. Note that this CSV has labels for this ${what}(s) Your manager image ${goQuoteSlice(managerImages)} are providing this support OR the CSV is configured via labels to support it. Then, please verify if this image should not support it`,
      );
    }
  }
  return warns;
}

/** `checkNodeAffinity`: a deployment image whose required node affinity is missing or unlike its platforms. */
function affinityProblems(
  group: ReadonlyMap<string, readonly ImageOsArch[]>,
  affinities: ReadonlyMap<string, readonly ImageOsArch[]>,
): string[] {
  const warns: string[] = [];
  const same = (a: ImageOsArch, b: ImageOsArch): boolean =>
    a.os === b.os && a.architecture === b.architecture;
  for (const [image, platforms] of group) {
    const affinity = affinities.get(image) ?? [];
    const provided = goQuoteSlice(platforms.map(formatOsArch));
    if (affinity.length === 0) {
      if (platforms.some((p) => p.architecture === 'error')) {
        warns.push(
          `check if the CSV is missing a node affinity configuration for the image: ${goQuote(image)}. `,
        );
      }
      warns.push(
        `check if the CSV has a missing or invalid node affinity configuration for the image: ${goQuote(image)}. The image data suggests the following platforms are supported: ${provided}`,
      );
      continue;
    }
    const extra = affinity.filter((a) => !platforms.some((p) => same(a, p)));
    const missing = platforms.filter((p) => !affinity.some((a) => same(a, p)));
    if (extra.length > 0) {
      warns.push(
        `the CSV includes ${goQuoteSlice(extra.map(formatOsArch))} in the node affinity configuration for the image: ${goQuote(image)}, but the image data suggests the following platforms are supported: ${provided}`,
      );
    }
    if (missing.length > 0) {
      warns.push(
        `the image data indicates ${goQuoteSlice(missing.map(formatOsArch))} is supported for the image: ${goQuote(image)}, but the node affinity configuration for the image only specifies ${goQuoteSlice(affinity.map(formatOsArch))}`,
      );
    }
  }
  return warns;
}
