import { join } from 'node:path';
import type { OutputGuard, RegistryClient } from '@opkit/oci';
import { type WrittenBundle, writeBundle } from '../bundle/write.js';
import { readYamlStream } from '../bundle/yaml.js';
import { findBaseCsv } from '../csv/base.js';
import { generateCsv } from '../csv/generate.js';
import { managerImages } from '../csv/operator-objects.js';
import { type PlatformEvidence, setPlatforms } from '../csv/platforms.js';
import type { ClusterServiceVersion } from '../manifest/cluster-service-version.js';
import type { Manifest } from '../manifest/manifest.js';
import { tryParseVersion } from '../semver/version.js';
import { type ImageOsArch, multiArchImages } from '../validation/multiarch.js';
import { ActionError } from './errors.js';
import { deploymentImages, pinnedReference, withImages } from './image-digests.js';
import { type ImagePlatformSources, readImagePlatforms } from './image-platforms.js';
import { checkImageReference } from './image-reference.js';
import { runKustomize } from './kubectl.js';
import { checkPackageName } from './package-name.js';
import type { Progress } from './progress.js';

/** Renders an operator's `config/manifests` with kustomize (through kubectl) into objects. */
export function renderOperatorManifests(operatorDir: string): Manifest[] {
  const dir = join(operatorDir, 'config', 'manifests');
  const result = runKustomize(dir);
  if (result.status !== 0) {
    throw new ActionError(
      'OPKIT_KUSTOMIZE_FAILED',
      `${dir}: kustomize failed: ${result.stderr.trim().split('\n').pop()}`,
    );
  }
  let objects: unknown[];
  try {
    objects = readYamlStream(result.stdout);
  } catch (error) {
    throw new ActionError('OPKIT_KUSTOMIZE_FAILED', `${dir}: kustomize output: ${(error as Error).message}`);
  }
  return objects.filter((o): o is Manifest => Boolean(o));
}

export interface GenerateBundleOptions {
  readonly operatorDir: string;
  readonly packageName: string;
  readonly version: string;
  readonly outDir: string;
  readonly channels: readonly string[];
  readonly defaultChannel?: string;
  readonly replaces?: string;
  readonly operatorImage?: string;
  /**
   * Pin every image the Deployments name (operator and `RELATED_IMAGE_*` operands) to the digest this
   * registry client resolves, as `operator-sdk generate bundle --use-image-digests` does.
   */
  readonly imageDigests?: RegistryClient;
  /**
   * The output-directory rule's view of `outDir`: the flag naming it, `force`, and the inputs (default: the
   * operator directory as `--operator`).
   */
  readonly output?: OutputGuard;
  /**
   * The platforms the CSV states (its `operatorframework.io/arch.*` / `os.*` labels and its Deployments'
   * node affinity, see `setPlatforms`): given outright, or read from the CSV's images (manager, other
   * containers, related images). Unset: the CSV's labels are the base CSV's, untouched.
   */
  readonly platforms?: BundlePlatforms;
  /** Where a platform step that keeps the base's labels says so, in one line. */
  readonly onProgress?: Progress;
}

/** How {@link GenerateBundleOptions.platforms} are found. */
export type BundlePlatforms =
  | {
      readonly kind: 'given';
      readonly platforms: readonly ImageOsArch[];
      /** Where they were given, for messages (default `--platforms`). */
      readonly source?: string;
    }
  | {
      readonly kind: 'images';
      readonly sources: ImagePlatformSources;
      /**
       * An image that cannot be read (not pushed yet, no access): `fail` stops the step naming it; `keep`
       * writes the CSV with the base CSV's labels and no affinity, saying so through `onProgress`.
       */
      readonly unreadable: 'fail' | 'keep';
    };

/**
 * `operator-sdk generate bundle`: CSV from the base CSV and the operator's manifests, then the bundle directory.
 * Returns what was written, the annotations (the bundle image's labels) among it.
 */
export async function generateBundle(o: GenerateBundleOptions): Promise<WrittenBundle> {
  checkPackageName(o.packageName);
  // operator-sdk takes the CSV name (<package>.v<version>); a bare version names this package's CSV.
  const replacesVersion = o.replaces?.startsWith(`${o.packageName}.v`)
    ? o.replaces.slice(o.packageName.length + 2)
    : o.replaces;
  if (o.replaces?.includes('.v') && replacesVersion === o.replaces) {
    throw new ActionError(
      'OPKIT_ARGUMENT_INVALID',
      `--replaces ${JSON.stringify(o.replaces)}: a CSV name of another package (this bundle is of ${o.packageName})`,
    );
  }
  if (o.operatorImage !== undefined) checkImageReference('--image', o.operatorImage);
  if (o.defaultChannel !== undefined && !o.channels.includes(o.defaultChannel)) {
    throw new ActionError(
      'OPKIT_ARGUMENT_INVALID',
      `--default-channel ${JSON.stringify(o.defaultChannel)}: not one of --channels ${o.channels.join(',')}`,
    );
  }
  for (const [flag, value] of [
    ['--version', o.version],
    ['--replaces', replacesVersion],
  ] as const) {
    if (value !== undefined && tryParseVersion(value) === undefined) {
      throw new ActionError(
        'OPKIT_ARGUMENT_INVALID',
        `${flag} ${JSON.stringify(value)}: not a semantic version (e.g. 0.2.0, without a leading v)${flag === '--replaces' ? ` nor a CSV name ${o.packageName}.v<version>` : ''}`,
      );
    }
  }
  let objects = renderOperatorManifests(o.operatorDir);
  let operatorImage = o.operatorImage;
  if (o.imageDigests) {
    const pins = new Map<string, string>();
    if (operatorImage) pins.set(operatorImage, await pinnedReference(o.imageDigests, operatorImage));
    // The CSV puts the operator image on the manager containers: the images they name now are not shipped.
    const replaced = new Set(operatorImage ? managerImages(objects) : []);
    for (const image of deploymentImages(objects)) {
      if (!pins.has(image) && !replaced.has(image))
        pins.set(image, await pinnedReference(o.imageDigests, image));
    }
    objects = withImages(objects, pins);
    if (operatorImage) operatorImage = pins.get(operatorImage) ?? operatorImage;
  }
  const base = findBaseCsv(objects, o.packageName);
  const otherBases = objects.filter((obj) => obj.kind === 'ClusterServiceVersion');
  if (base === undefined && otherBases.length > 0) {
    // operator-sdk would start from an empty CSV here and silently drop the hand-written one.
    const names = otherBases.map((csv) => csv.metadata?.name ?? '(unnamed)').join(', ');
    throw new ActionError(
      'OPKIT_BASE_CSV_MISMATCH',
      `${join(o.operatorDir, 'config', 'manifests')}: the base CSV ${names} is not of package ${o.packageName} (its name must start with "${o.packageName}."): give the package the base is written for, or rename the base`,
    );
  }
  // The scorecard's configuration goes to tests/scorecard/, not among the manifests, as operator-sdk does it.
  const isScorecardConfig = (obj: Manifest) =>
    obj.kind === 'Configuration' && obj.apiVersion === 'scorecard.operatorframework.io/v1alpha3';
  const scorecardConfigs = objects.filter(isScorecardConfig);
  if (scorecardConfigs.length > 1) {
    throw new ActionError(
      'OPKIT_ARGUMENT_INVALID',
      `${join(o.operatorDir, 'config', 'manifests')}: ${scorecardConfigs.length} scorecard Configurations; a bundle holds one`,
    );
  }
  const { csv, manifests } = generateCsv({
    base,
    packageName: o.packageName,
    objects: objects.filter((obj) => obj.kind !== 'ClusterServiceVersion' && !isScorecardConfig(obj)),
    version: o.version,
    replaces: replacesVersion ? `${o.packageName}.v${replacesVersion}` : null,
    operatorImage,
  });
  if (o.platforms !== undefined) await statePlatforms(csv, o.platforms, o.onProgress);
  return writeBundle(o.outDir, {
    packageName: o.packageName,
    channels: o.channels,
    defaultChannel: o.defaultChannel ?? o.channels[0],
    csv,
    objects: manifests,
    ...(scorecardConfigs[0] !== undefined ? { scorecardConfig: scorecardConfigs[0] } : {}),
    output: {
      ...o.output,
      // The kustomize inputs (the hand-written base CSV among them) too, however the operator is named.
      inputs: [
        ...(o.output?.inputs ?? [{ name: '--operator', path: o.operatorDir }]),
        { name: "--operator's config directory", path: join(o.operatorDir, 'config') },
      ],
    },
  });
}

/** The platform step of {@link generateBundle}: the labels and node affinity from what `platforms` names. */
async function statePlatforms(
  csv: ClusterServiceVersion,
  platforms: BundlePlatforms,
  onProgress: Progress | undefined,
): Promise<void> {
  let evidence: PlatformEvidence;
  if (platforms.kind === 'given') {
    evidence = { kind: 'given', platforms: platforms.platforms, source: platforms.source ?? '--platforms' };
  } else {
    const images = new Map<string, readonly ImageOsArch[]>();
    for (const image of multiArchImages(csv)) {
      try {
        images.set(image, (await readImagePlatforms(image, platforms.sources)).platforms);
      } catch (error) {
        const reason = (error instanceof Error ? error.message : String(error)).split('\n')[0];
        if (platforms.unreadable === 'keep') {
          onProgress?.(
            `platforms not derived: cannot read image ${image} (${reason}); the base CSV's labels are kept as written`,
          );
          return;
        }
        throw new ActionError(
          'OPKIT_IMAGE_UNREADABLE',
          `cannot read the platforms of image ${image}: ${reason} (push it, name its OCI layout with --image-layout, give --platforms, or keep the base CSV's labels with --unreadable-images keep)`,
        );
      }
    }
    evidence = { kind: 'images', images };
  }
  setPlatforms(csv, evidence);
}
