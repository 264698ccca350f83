import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import {
  OutputDirectoryError,
  type OutputGuard,
  type OutputKind,
  writeOutputDirectory,
} from '@opkit/oci/output-directory';
import { type ClusterServiceVersion, CSV_KIND } from '../manifest/cluster-service-version.js';
import { deepCopy, type Manifest } from '../manifest/manifest.js';
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
  /** Who names the directory and what the command reads, for the output-directory rule. */
  readonly output?: OutputGuard;
  /** Also write `bundle.Dockerfile` into the bundle directory. @default true */
  readonly dockerfile?: boolean;
}

/** What {@link writeBundle} wrote. */
export interface WrittenBundle {
  /** Absolute path of the bundle directory. */
  readonly dir: string;
  /** Every file written, relative to `dir`, sorted. */
  readonly files: readonly string[];
  /** What each file holds, by its path relative to `dir`: the bundle as written, for its image. */
  readonly contents: ReadonlyMap<string, string>;
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

/**
 * What `writeBundle` owns in a bundle directory: an earlier bundle's other files (a README, a Makefile, other
 * tests) stay, as operator-sdk leaves them.
 */
const BUNDLE_ENTRIES: readonly string[] = [
  'bundle.Dockerfile',
  'manifests',
  'metadata',
  'tests/scorecard/config.yaml',
];

/** A bundle directory, recognised by the media type label of its `metadata/annotations.yaml`. */
const BUNDLE_OUTPUT: OutputKind = {
  what: 'bundle',
  mark: 'a bundle has metadata/annotations.yaml',
  isEarlierOutput: async (dir) => {
    const annotations = await readFile(join(dir, 'metadata', 'annotations.yaml'), 'utf8').catch(() => '');
    return /^\s*operators\.operatorframework\.io\.bundle\.mediatype\.v1\s*:/m.test(annotations);
  },
};

/**
 * Writes a registry+v1 bundle directory the way `operator-sdk generate bundle` lays it out: `manifests/` (one
 * file per object, SDK file names), `metadata/annotations.yaml`, optional `metadata/dependencies.yaml`,
 * `metadata/properties.yaml` and `tests/scorecard/config.yaml`, and `bundle.Dockerfile`.
 *
 * `dir` is an output directory (see `@opkit/oci/output-directory`): absent, empty, or an earlier bundle (or
 * any directory with `output.force`), never the current directory nor one holding an input of `output`. Of an
 * existing directory only {@link BUNDLE_ENTRIES} are replaced; its other files stay. Everything is written
 * into a temporary sibling directory first and renamed into place: on failure a previous bundle stays as it was.
 *
 * @throws {BundleError} `OLM_BUNDLE_INPUT_INVALID` for inconsistent input, `OLM_BUNDLE_WRITE_FAILED` when the
 *   directory exists and `overwrite` is false or the file system fails; OutputDirectoryError when `dir` may
 *   not be written.
 */
export async function writeBundle(dir: string, options: WriteBundleOptions): Promise<WrittenBundle> {
  const target = resolve(dir);
  const files = bundleFiles(options);
  if (!(options.overwrite ?? true) && existsSync(target)) {
    throw new BundleError('OLM_BUNDLE_WRITE_FAILED', `bundle directory ${target} already exists`);
  }
  const stage = async (temp: string): Promise<void> => {
    for (const [path, content] of files) {
      await mkdir(dirname(join(temp, path)), { recursive: true });
      await writeFile(join(temp, path), content);
    }
  };
  try {
    // The path as given: `..` after a symlink is the kernel's to resolve, not `resolve`'s.
    await writeOutputDirectory(dir, BUNDLE_OUTPUT, { owned: BUNDLE_ENTRIES, stage }, options.output);
  } catch (error) {
    if (error instanceof OutputDirectoryError) throw error;
    throw new BundleError(
      'OLM_BUNDLE_WRITE_FAILED',
      `cannot write bundle ${target}: ${(error as Error).message}`,
      [],
      {
        cause: error,
      },
    );
  }
  return {
    dir: target,
    files: [...files.keys()].sort(),
    contents: files,
    annotations: bundleAnnotations(bundleMetadataOf(options)),
  };
}
