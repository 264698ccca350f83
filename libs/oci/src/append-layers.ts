import { InputInvalidError } from './errors.js';
import {
  type Blob,
  buildImage,
  type Descriptor,
  type HistoryEntry,
  type ImageConfig,
  type OciImage,
  ociImage,
  rfc3339,
} from './image.js';
import { buildImageIndex, isImageIndex, type OciImageIndex } from './image-index.js';
import { LAYER_MEDIA_TYPE, type Layer } from './layer.js';

/** Annotation naming the base image a manifest was built on (OCI image spec, pre-defined annotations). */
export const BASE_NAME_ANNOTATION = 'org.opencontainers.image.base.name';
/** Annotation holding the manifest (or index) digest of the base image. */
export const BASE_DIGEST_ANNOTATION = 'org.opencontainers.image.base.digest';

/** Options of {@link appendLayers}: how the new image's config differs from its base's. */
export interface AppendLayersOptions {
  /**
   * Seconds since the epoch for the new config's `created` and the history entries of the appended layers.
   * @default 0
   */
  readonly created?: number;
  /** `created_by` of each appended layer's history entry, by index. @default '@opkit/oci' */
  readonly createdBy?: readonly string[];
  /** Replaces `config.User` (`uid[:gid]` or a name from the image's `/etc/passwd`). @default the base's */
  readonly user?: string;
  /**
   * Replaces `config.Entrypoint`. As with a Dockerfile's `ENTRYPOINT`, the base's `Cmd` is dropped unless
   * `cmd` is given too. @default the base's
   */
  readonly entrypoint?: readonly string[];
  /** Replaces `config.Cmd`. @default the base's */
  readonly cmd?: readonly string[];
  /** Replaces `config.WorkingDir`; must be absolute. @default the base's */
  readonly workingDir?: string;
  /**
   * `KEY=value` entries added to `config.Env`: an entry replaces the base's entry of the same key in place,
   * new keys are appended in the given order.
   */
  readonly env?: readonly string[];
  /** `port[/protocol]` entries added to `config.ExposedPorts` (protocol `tcp` when left out). */
  readonly exposedPorts?: readonly string[];
  /** Merged over the base's `config.Labels` (a label given here wins); written with keys sorted. */
  readonly labels?: Readonly<Record<string, string>>;
  /**
   * Annotations of the new manifest (and index). The base's manifest annotations describe the base and are
   * not carried over; {@link BASE_DIGEST_ANNOTATION} is always written, {@link BASE_NAME_ANNOTATION} when
   * `baseName` is given.
   */
  readonly annotations?: Readonly<Record<string, string>>;
  /** The base's reference, e.g. `gcr.io/distroless/nodejs24-debian12:nonroot`, for {@link BASE_NAME_ANNOTATION}. */
  readonly baseName?: string;
}

/** Docker media types and the OCI names of the same formats. */
const OCI_LAYER_TYPE: Readonly<Record<string, string>> = {
  'application/vnd.docker.image.rootfs.diff.tar.gzip': LAYER_MEDIA_TYPE,
  'application/vnd.docker.image.rootfs.foreign.diff.tar.gzip':
    'application/vnd.oci.image.layer.nondistributable.v1.tar+gzip',
};

/** Key order of the config document, its `config` object and history entries; other keys follow, sorted. */
const CONFIG_KEYS = ['created', 'author', 'architecture', 'os', 'os.version', 'os.features', 'variant'];
const CONFIG_TAIL_KEYS = ['config', 'rootfs', 'history'];
const RUNTIME_KEYS = [
  'User',
  'ExposedPorts',
  'Env',
  'Entrypoint',
  'Cmd',
  'Volumes',
  'WorkingDir',
  'Labels',
  'StopSignal',
  'ArgsEscaped',
];
const HISTORY_KEYS = ['created', 'created_by', 'author', 'comment', 'empty_layer'];

/**
 * Appends `layers` to a base image, as a Dockerfile `FROM base` + `COPY` would, without a container engine.
 *
 * The new config is the base's with `rootfs.diff_ids` extended, one history entry per appended layer (when
 * the base keeps a history, or has no layers), and the runtime settings of `options` applied; unknown fields
 * of the base config are kept. The base's layer blobs are reused as they are: same bytes, digests and sizes.
 *
 * The result is always an OCI manifest with an OCI config, whatever the base's media types: Docker layer
 * media types are replaced by the OCI names of the identical formats (`…rootfs.diff.tar.gzip` → `…layer.v1.tar+gzip`),
 * so the manifest never mixes the two specifications, which some registries refuse, and OCI annotations are
 * allowed on it. JSON is serialized compactly with a fixed key order, so an equal base, layers and options give
 * an equal digest.
 *
 * For an image index, every platform image of the base gets the same layers, and the result is a new OCI
 * index listing them with the platform of each config. `options` may be a function of each platform's base
 * image, for settings that depend on it (an entrypoint found in the base, say).
 *
 * @throws InputInvalidError for an `env` entry without `=`, a malformed port, a relative `workingDir`, or an
 *   index base without images.
 */
export function appendLayers(
  base: OciImage,
  layers: readonly Layer[],
  options?: AppendLayersOptions | ((base: OciImage) => AppendLayersOptions),
): OciImage;
export function appendLayers(
  base: OciImageIndex,
  layers: readonly Layer[],
  options?: AppendLayersOptions | ((base: OciImage) => AppendLayersOptions),
): OciImageIndex;
export function appendLayers(
  base: OciImage | OciImageIndex,
  layers: readonly Layer[],
  options?: AppendLayersOptions | ((base: OciImage) => AppendLayersOptions),
): OciImage | OciImageIndex;
export function appendLayers(
  base: OciImage | OciImageIndex,
  layers: readonly Layer[],
  options: AppendLayersOptions | ((base: OciImage) => AppendLayersOptions) = {},
): OciImage | OciImageIndex {
  const optionsFor = typeof options === 'function' ? options : () => options;
  if (!isImageIndex(base)) return appendToImage(base, layers, optionsFor(base));
  if (base.images.length === 0) {
    throw new InputInvalidError(`image index ${base.digest} holds no image to append layers to`);
  }
  const images = base.images.map(({ image }) => appendToImage(image, layers, optionsFor(image)));
  const first = optionsFor(base.images[0]!.image);
  return buildImageIndex(images, { annotations: baseAnnotations(first, base.digest) });
}

function appendToImage(base: OciImage, layers: readonly Layer[], options: AppendLayersOptions): OciImage {
  const created = rfc3339(options.created ?? 0);
  const config: Record<string, unknown> = { ...base.config, created };
  config.config = runtimeConfig(base.config.config ?? {}, options);
  config.rootfs = {
    type: 'layers',
    diff_ids: [...base.config.rootfs.diff_ids, ...layers.map((l) => l.tarDigest)],
  };
  const baseHistory = base.config.history;
  if (baseHistory !== undefined || base.layers.length === 0) {
    config.history = [
      ...(baseHistory ?? []).map((entry) => ordered(entry, HISTORY_KEYS)),
      ...layers.map(
        (_, i): HistoryEntry => ({ created, created_by: options.createdBy?.[i] ?? '@opkit/oci' }),
      ),
    ];
  }
  const configDoc = ordered(config, CONFIG_KEYS, CONFIG_TAIL_KEYS) as unknown as ImageConfig;
  const layerBlobs: Blob[] = [
    ...base.layers.map((blob) => ({ descriptor: ociLayerDescriptor(blob.descriptor), bytes: blob.bytes })),
    ...layers.map((l) => ({
      descriptor: { mediaType: LAYER_MEDIA_TYPE, digest: l.gzDigest, size: l.size },
      bytes: l.bytes,
    })),
  ];
  return ociImage(configDoc, layerBlobs, baseAnnotations(options, base.digest));
}

/** The base's runtime settings with `options` applied, keys in the OCI spec's order. */
function runtimeConfig(
  base: NonNullable<ImageConfig['config']>,
  options: AppendLayersOptions,
): Record<string, unknown> {
  // buildImage validates and normalizes these settings exactly as it does for images built from scratch.
  const settings = pick(options, ['user', 'entrypoint', 'cmd', 'workingDir', 'env', 'exposedPorts']);
  const wanted = buildImage([], settings).config.config ?? {};
  const out: Record<string, unknown> = { ...base };
  if (wanted.User !== undefined) out.User = wanted.User;
  if (wanted.Entrypoint !== undefined && wanted.Entrypoint !== null) {
    out.Entrypoint = wanted.Entrypoint;
    if (wanted.Cmd === undefined) delete out.Cmd;
  }
  if (wanted.Cmd !== undefined && wanted.Cmd !== null) out.Cmd = wanted.Cmd;
  if (wanted.WorkingDir !== undefined) out.WorkingDir = wanted.WorkingDir;
  if (wanted.Env !== undefined && wanted.Env !== null) out.Env = mergeEnv(base.Env ?? [], wanted.Env);
  if (wanted.ExposedPorts !== undefined && wanted.ExposedPorts !== null) {
    const ports = new Set([...Object.keys(base.ExposedPorts ?? {}), ...Object.keys(wanted.ExposedPorts)]);
    const exposed: Record<string, Record<string, never>> = {};
    for (const port of [...ports].sort()) exposed[port] = {};
    out.ExposedPorts = exposed;
  }
  if (options.labels !== undefined || (base.Labels !== undefined && base.Labels !== null)) {
    out.Labels = sortedRecord({ ...(base.Labels ?? {}), ...(options.labels ?? {}) });
  }
  return ordered(out, RUNTIME_KEYS);
}

function mergeEnv(base: readonly string[], additions: readonly string[]): string[] {
  const key = (entry: string): string => entry.slice(0, Math.max(entry.indexOf('='), 0)) || entry;
  const out = [...base];
  for (const entry of additions) {
    const at = out.findIndex((existing) => key(existing) === key(entry));
    if (at === -1) out.push(entry);
    else out[at] = entry;
  }
  return out;
}

function ociLayerDescriptor(descriptor: Descriptor): Descriptor {
  const { mediaType, digest, size } = descriptor;
  const urls: unknown = (descriptor as { readonly urls?: unknown }).urls;
  return {
    mediaType: OCI_LAYER_TYPE[mediaType] ?? mediaType,
    digest,
    size,
    ...(Array.isArray(urls) ? { urls } : {}),
    ...(descriptor.annotations === undefined ? {} : { annotations: sortedRecord(descriptor.annotations) }),
  };
}

function baseAnnotations(options: AppendLayersOptions, baseDigest: string): Record<string, string> {
  return sortedRecord({
    ...(options.annotations ?? {}),
    [BASE_DIGEST_ANNOTATION]: baseDigest,
    ...(options.baseName === undefined ? {} : { [BASE_NAME_ANNOTATION]: options.baseName }),
  });
}

/** `record` with `first` keys (when present) in that order, then the other keys sorted, then `last` keys. */
function ordered(
  record: object,
  first: readonly string[],
  last: readonly string[] = [],
): Record<string, unknown> {
  const source = record as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  const fixed = new Set([...first, ...last]);
  const put = (key: string): void => {
    if (source[key] !== undefined) out[key] = source[key];
  };
  for (const key of first) put(key);
  for (const key of Object.keys(source).sort()) if (!fixed.has(key)) put(key);
  for (const key of last) put(key);
  return out;
}

function pick<T extends object, K extends keyof T>(value: T, keys: readonly K[]): Pick<T, K> {
  const out = {} as Pick<T, K>;
  for (const key of keys) if (value[key] !== undefined) out[key] = value[key];
  return out;
}

function sortedRecord(record: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of Object.keys(record).sort()) out[key] = record[key]!;
  return out;
}
