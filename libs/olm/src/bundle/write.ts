import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { type ClusterServiceVersion, CSV_KIND, deepCopy, type Manifest } from '../csv/types.js';
import {
  type BundleMetadata,
  bundleAnnotations,
  renderAnnotationsYaml,
  renderBundleDockerfile,
} from './annotations.js';
import { BundleError } from './errors.js';
import { manifestFileNames } from './file-names.js';
import { isSupportedKind } from './supported-kinds.js';
import { toGoYaml } from './yaml.js';

/** Input of {@link writeBundle}. */
export interface WriteBundleOptions {
  readonly packageName: string;
  /** Channels the bundle belongs to (at least one). */
  readonly channels: readonly string[];
  /** Must be one of `channels` when set. */
  readonly defaultChannel?: string;
  readonly csv: ClusterServiceVersion;
  /** The other manifests (CRDs, Services, RBAC not folded into the CSV, …); namespaces are stripped. */
  readonly objects: readonly Manifest[];
  /** Extra annotations/labels, e.g. the SDK's `operators.operatorframework.io.metrics.*`. */
  readonly otherLabels?: Readonly<Record<string, string>>;
  /** A scorecard `Configuration`, written to `tests/scorecard/config.yaml`. */
  readonly scorecardConfig?: Manifest;
  /** `metadata/dependencies.yaml` entries (`{type, value}`). */
  readonly dependencies?: readonly { readonly type: string; readonly value: unknown }[];
  /** `metadata/properties.yaml` entries (`{type, value}`). */
  readonly properties?: readonly { readonly type: string; readonly value: unknown }[];
  /** Replace an existing bundle directory. @default true */
  readonly overwrite?: boolean;
  /** Also write `bundle.Dockerfile` into the bundle directory. @default true */
  readonly dockerfile?: boolean;
}

/** What {@link writeBundle} wrote. */
export interface WrittenBundle {
  /** Absolute path of the bundle directory. */
  readonly dir: string;
  /** Every file written, relative to `dir`, sorted. */
  readonly files: readonly string[];
  /** The annotations written to `metadata/annotations.yaml`, in its order: the bundle image's labels. */
  readonly annotations: Readonly<Record<string, string>>;
}

/** What `metadata/annotations.yaml` and `bundle.Dockerfile` say of the bundle. */
function bundleMetadataOf(options: WriteBundleOptions): BundleMetadata {
  return {
    packageName: options.packageName,
    channels: options.channels,
    ...(options.defaultChannel !== undefined && options.defaultChannel !== ''
      ? { defaultChannel: options.defaultChannel }
      : {}),
    ...(options.otherLabels !== undefined ? { otherLabels: options.otherLabels } : {}),
    scorecard: options.scorecardConfig !== undefined,
  };
}

/** The files of a bundle, path (relative to the bundle directory) → content, without touching the disk. */
export function bundleFiles(options: WriteBundleOptions): Map<string, string> {
  const problems: string[] = [];
  if (options.packageName.trim() === '') problems.push('packageName must not be empty');
  if (options.channels.length === 0 || options.channels.some((c) => c.trim() === '' || c.includes(','))) {
    problems.push('channels must be a non-empty list of non-empty names without commas');
  }
  if (
    options.defaultChannel !== undefined &&
    options.defaultChannel !== '' &&
    !options.channels.includes(options.defaultChannel)
  ) {
    problems.push(`default channel ${JSON.stringify(options.defaultChannel)} is not one of the channels`);
  }
  if (options.csv.kind !== CSV_KIND) problems.push(`csv must be a ${CSV_KIND}, got ${options.csv.kind}`);
  for (const obj of options.objects) {
    if (obj.kind === CSV_KIND) problems.push('objects must not contain a second ClusterServiceVersion');
    else if (!isSupportedKind(obj.kind)) {
      problems.push(
        `${obj.kind} ${JSON.stringify(obj.metadata?.name ?? '')} is not a supported kind for a registry+v1 bundle`,
      );
    }
  }
  if (problems.length > 0) {
    throw new BundleError('OLM_BUNDLE_INPUT_INVALID', `cannot write bundle: ${problems.join('; ')}`);
  }
  const objects = options.objects.map((obj) => {
    const copy = deepCopy(obj);
    delete copy.metadata.namespace;
    return copy;
  });
  const all: Manifest[] = [options.csv, ...objects];
  const names = manifestFileNames(all, options.packageName);
  const files = new Map<string, string>();
  all.forEach((obj, i) => {
    files.set(`manifests/${names[i]}`, toGoYaml(obj));
  });
  const meta = bundleMetadataOf(options);
  files.set('metadata/annotations.yaml', renderAnnotationsYaml(meta));
  if (options.dependencies !== undefined && options.dependencies.length > 0) {
    files.set('metadata/dependencies.yaml', toGoYaml({ dependencies: options.dependencies }));
  }
  if (options.properties !== undefined && options.properties.length > 0) {
    files.set('metadata/properties.yaml', toGoYaml({ properties: options.properties }));
  }
  if (options.scorecardConfig !== undefined)
    files.set('tests/scorecard/config.yaml', toGoYaml(options.scorecardConfig));
  if (options.dockerfile ?? true) files.set('bundle.Dockerfile', renderBundleDockerfile(meta));
  return files;
}

const suffix = () => randomBytes(4).toString('hex');

/**
 * Writes a registry+v1 bundle directory the way `operator-sdk generate bundle` lays it out: `manifests/` (one
 * file per object, SDK file names), `metadata/annotations.yaml`, optional `metadata/dependencies.yaml`,
 * `metadata/properties.yaml` and `tests/scorecard/config.yaml`, and `bundle.Dockerfile`.
 *
 * Atomic: everything is written into a temporary sibling directory which then replaces `dir`; on failure
 * nothing is left behind and a previous bundle stays in place.
 *
 * @throws {BundleError} `OLM_BUNDLE_INPUT_INVALID` for inconsistent input, `OLM_BUNDLE_WRITE_FAILED` when the
 *   directory exists and `overwrite` is false or the file system fails.
 */
export async function writeBundle(dir: string, options: WriteBundleOptions): Promise<WrittenBundle> {
  const target = resolve(dir);
  const files = bundleFiles(options);
  if (!(options.overwrite ?? true) && existsSync(target)) {
    throw new BundleError('OLM_BUNDLE_WRITE_FAILED', `bundle directory ${target} already exists`);
  }
  const parent = dirname(target);
  const temp = join(parent, `.${basename(target)}.tmp-${suffix()}`);
  const old = join(parent, `.${basename(target)}.old-${suffix()}`);
  let moved = false;
  try {
    await mkdir(parent, { recursive: true });
    await mkdir(temp);
    for (const [path, content] of files) {
      await mkdir(dirname(join(temp, path)), { recursive: true });
      await writeFile(join(temp, path), content);
    }
    if (existsSync(target)) {
      await rename(target, old);
      moved = true;
    }
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { recursive: true, force: true }).catch(() => undefined);
    if (moved && !existsSync(target)) await rename(old, target).catch(() => undefined);
    throw new BundleError(
      'OLM_BUNDLE_WRITE_FAILED',
      `cannot write bundle ${target}: ${(error as Error).message}`,
      [],
      {
        cause: error,
      },
    );
  }
  if (moved) await rm(old, { recursive: true, force: true });
  return {
    dir: target,
    files: [...files.keys()].sort(),
    annotations: bundleAnnotations(bundleMetadataOf(options)),
  };
}
