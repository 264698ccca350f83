import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { InputInvalidError } from './errors.js';
import { buildImage, type OciImage } from './image.js';
import { type LayerEntry, type LayerOptions, layerFromEntries, readDirectoryEntries } from './layer.js';

/** Label (and annotation) naming the package of a `registry+v1` bundle; opm classifies bundle images by it. */
export const BUNDLE_PACKAGE_LABEL = 'operators.operatorframework.io.bundle.package.v1';

/** Options shared by the OLM image builders. */
export interface OlmImageOptions {
  /** Seconds since the epoch for every file mtime and the config's `created`; default `0`. */
  readonly mtime?: number;
  /** Default `amd64`. */
  readonly architecture?: string;
  /** Default `linux`. */
  readonly os?: string;
  /** gzip level of the layer; see {@link LayerOptions.compressionLevel}. Default `6`. */
  readonly compressionLevel?: number;
}

/**
 * Builds a `registry+v1` bundle image (the equivalent of the SDK's `bundle.Dockerfile`: `FROM scratch`, one
 * `LABEL` per annotation, `COPY` of the bundle directories) without a container engine.
 *
 * The image has one layer holding `manifests/…`, `metadata/…` and, when present, `tests/scorecard/…` of
 * `bundleDir` at the image root; `labels` become `config.Labels`. Pass the annotations of
 * `metadata/annotations.yaml` as `labels` (parsing the YAML is the caller's job) — upstream expects both to be
 * equal. Other files in `bundleDir` are ignored. The result depends only on file paths and contents, the labels
 * and the options.
 *
 * @throws InputInvalidError when `manifests/` or `metadata/` is missing or the package label is absent.
 */
export async function bundleImage(
  bundleDir: string,
  labels: Readonly<Record<string, string>>,
  options: OlmImageOptions = {},
): Promise<OciImage> {
  for (const required of ['manifests', 'metadata']) {
    if (!(await isDirectory(join(bundleDir, required)))) {
      throw new InputInvalidError(`bundle directory ${bundleDir} has no ${required}/ directory`);
    }
  }
  checkPackageLabel(bundleDir, labels);
  const entries: LayerEntry[] = [];
  const copied: string[] = [];
  for (const sub of ['manifests', 'metadata', 'tests/scorecard']) {
    const abs = join(bundleDir, ...sub.split('/'));
    if (sub === 'tests/scorecard' && !(await isDirectory(abs))) continue;
    entries.push(...(await readDirectoryEntries(abs, { as: sub })));
    copied.push(sub);
  }
  return bundleImageOf(entries, copied, labels, options);
}

/**
 * {@link bundleImage} of a bundle held in memory, as a writer has just written it: `files` maps paths relative
 * to the bundle directory (`manifests/…`, `metadata/…`, `tests/scorecard/…`) to their contents; other paths are
 * ignored. The image is the one {@link bundleImage} builds from a directory holding exactly these files, so a
 * bundle just written is imaged without reading it back. `where` names the bundle in errors.
 *
 * @throws InputInvalidError when no file is under `manifests/` or `metadata/`, or the package label is absent.
 */
export async function bundleImageFromFiles(
  where: string,
  files: ReadonlyMap<string, Uint8Array | string>,
  labels: Readonly<Record<string, string>>,
  options: OlmImageOptions = {},
): Promise<OciImage> {
  const entries: LayerEntry[] = [];
  const copied: string[] = [];
  for (const sub of ['manifests', 'metadata']) {
    if (![...files.keys()].some((path) => path.startsWith(`${sub}/`)))
      throw new InputInvalidError(`bundle directory ${where} has no ${sub}/ directory`);
  }
  checkPackageLabel(where, labels);
  for (const sub of ['manifests', 'metadata', 'tests/scorecard']) {
    const under = [...files.keys()].filter((path) => path.startsWith(`${sub}/`)).sort();
    if (under.length === 0) continue;
    for (const path of under) entries.push({ path, content: files.get(path) ?? '' });
    copied.push(sub);
  }
  return bundleImageOf(entries, copied, labels, options);
}

/** A bundle image is labelled with its package, as opm classifies bundle images by it. */
function checkPackageLabel(where: string, labels: Readonly<Record<string, string>>): void {
  const pkg = labels[BUNDLE_PACKAGE_LABEL];
  if (pkg === undefined || pkg === '') {
    throw new InputInvalidError(`bundle labels for ${where} lack ${BUNDLE_PACKAGE_LABEL}`);
  }
}

/** The image of a bundle's layer entries, from the directories `copied`. */
async function bundleImageOf(
  entries: readonly LayerEntry[],
  copied: readonly string[],
  labels: Readonly<Record<string, string>>,
  options: OlmImageOptions,
): Promise<OciImage> {
  const layer = layerFromEntries(entries, {
    mtime: options.mtime ?? 0,
    ...(options.compressionLevel === undefined ? {} : { compressionLevel: options.compressionLevel }),
  });
  return buildImage([layer], {
    labels,
    created: options.mtime ?? 0,
    createdBy: [`COPY ${copied.map((c) => `${c}/`).join(' ')} / # @opkit/oci bundle`],
    ...(options.architecture === undefined ? {} : { architecture: options.architecture }),
    ...(options.os === undefined ? {} : { os: options.os }),
  });
}

/** Whether `path` is a directory (false when it does not exist). */
export async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}
