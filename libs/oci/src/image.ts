import { isDigest, sha256Digest } from './digest.js';
import { DigestMismatchError, InputInvalidError, ManifestInvalidError } from './errors.js';
import { LAYER_MEDIA_TYPE, type Layer } from './layer.js';

/** Media types this package writes or understands. */
export const MediaType = {
  ociManifest: 'application/vnd.oci.image.manifest.v1+json',
  ociIndex: 'application/vnd.oci.image.index.v1+json',
  ociConfig: 'application/vnd.oci.image.config.v1+json',
  ociLayerGzip: LAYER_MEDIA_TYPE,
  ociLayerTar: 'application/vnd.oci.image.layer.v1.tar',
  dockerManifest: 'application/vnd.docker.distribution.manifest.v2+json',
  dockerManifestList: 'application/vnd.docker.distribution.manifest.list.v2+json',
  dockerConfig: 'application/vnd.docker.container.image.v1+json',
  dockerLayerGzip: 'application/vnd.docker.image.rootfs.diff.tar.gzip',
} as const;

const MANIFEST_TYPES: ReadonlySet<string> = new Set([MediaType.ociManifest, MediaType.dockerManifest]);
const INDEX_TYPES: ReadonlySet<string> = new Set([MediaType.ociIndex, MediaType.dockerManifestList]);
const CONFIG_TYPES: ReadonlySet<string> = new Set([MediaType.ociConfig, MediaType.dockerConfig]);

/** The platform of an image (OCI `platform` object). */
export interface Platform {
  readonly architecture: string;
  readonly os: string;
  readonly variant?: string;
}

/** An OCI content descriptor. */
export interface Descriptor {
  readonly mediaType: string;
  readonly digest: string;
  readonly size: number;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly platform?: Platform;
}

/** One `history` entry of an image config. */
export interface HistoryEntry {
  readonly created?: string;
  readonly created_by?: string;
  readonly comment?: string;
  readonly empty_layer?: boolean;
}

/** The parts of an OCI image config this package reads and writes (unknown fields are kept on parse). */
export interface ImageConfig {
  readonly created?: string;
  readonly architecture: string;
  readonly os: string;
  readonly variant?: string;
  /** Runtime defaults of a container (Docker/OCI names). Configs written by Docker may hold `null`s. */
  readonly config?: {
    readonly User?: string;
    readonly ExposedPorts?: Readonly<Record<string, Readonly<Record<string, never>>>> | null;
    readonly Env?: readonly string[] | null;
    readonly Entrypoint?: readonly string[] | null;
    readonly Cmd?: readonly string[] | null;
    readonly WorkingDir?: string;
    readonly Labels?: Readonly<Record<string, string>>;
    readonly [key: string]: unknown;
  };
  readonly rootfs: { readonly type: string; readonly diff_ids: readonly string[] };
  readonly history?: readonly HistoryEntry[];
}

/** An image manifest (OCI or Docker schema 2). */
export interface ImageManifest {
  readonly schemaVersion: 2;
  readonly mediaType?: string;
  readonly config: Descriptor;
  readonly layers: readonly Descriptor[];
  readonly annotations?: Readonly<Record<string, string>>;
}

/** An image index (OCI) or manifest list (Docker). */
export interface ImageIndex {
  readonly schemaVersion: 2;
  readonly mediaType?: string;
  readonly manifests: readonly Descriptor[];
  readonly annotations?: Readonly<Record<string, string>>;
}

/** A blob and the descriptor that names it. */
export interface Blob {
  readonly descriptor: Descriptor;
  readonly bytes: Uint8Array;
}

/**
 * A complete single-platform image held in memory: manifest, config and layer blobs with their exact bytes,
 * so digests are preserved when the image is written to a layout or pushed.
 */
export interface OciImage {
  /** Media type of the manifest. */
  readonly mediaType: string;
  /** Digest of `manifestBytes`: the image's identity. */
  readonly digest: string;
  readonly manifest: ImageManifest;
  readonly manifestBytes: Uint8Array;
  readonly config: ImageConfig;
  readonly configBytes: Uint8Array;
  /** Layer blobs, in manifest order. */
  readonly layers: readonly Blob[];
}

/** Options of {@link buildImage}. */
export interface ImageOptions {
  /** `config.Labels`; written with keys sorted. */
  readonly labels?: Readonly<Record<string, string>>;
  /** Default `amd64`. */
  readonly architecture?: string;
  /** Default `linux`. */
  readonly os?: string;
  /** Seconds since the epoch for `created` and every history entry; default `0`. */
  readonly created?: number;
  /** `created_by` of each layer's history entry, by index; default `@opkit/oci`. */
  readonly createdBy?: readonly string[];
  /** Manifest annotations; written with keys sorted. */
  readonly annotations?: Readonly<Record<string, string>>;
  /**
   * `config.User`: `uid[:gid]` or a user name known to the image's `/etc/passwd`. A numeric user lets Kubernetes
   * check `runAsNonRoot` without looking into the image. Default: not written (the runtime runs as root).
   */
  readonly user?: string;
  /** `config.Entrypoint`: the executable and its leading arguments. Default: not written. */
  readonly entrypoint?: readonly string[];
  /** `config.Cmd`: the arguments after the entrypoint, or the command when there is none. Default: not written. */
  readonly cmd?: readonly string[];
  /** `config.Env`: `KEY=value` entries, written in the given order. Default: not written. */
  readonly env?: readonly string[];
  /** `config.WorkingDir`: absolute directory the process starts in. Default: not written (`/`). */
  readonly workingDir?: string;
  /**
   * `config.ExposedPorts`: `port[/protocol]` entries such as `11211/tcp`; a missing protocol means `tcp`. Written
   * as an object of `{}` values with keys sorted. Default: not written.
   */
  readonly exposedPorts?: readonly string[];
}

/** RFC 3339 UTC timestamp without fractional seconds for `seconds` since the epoch. */
export function rfc3339(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * Assembles an OCI image from layers: a config with `rootfs.diff_ids`, one history entry per layer and the
 * runtime defaults given in `options` (user, entrypoint, command, environment, working directory, ports), and an
 * OCI manifest referencing the config and the gzip layers. JSON is serialized compactly with a fixed key order,
 * so equal inputs give an equal manifest digest.
 *
 * @throws InputInvalidError for an `env` entry without `=`, a malformed exposed port or a relative `workingDir`.
 */
export function buildImage(layers: readonly Layer[], options: ImageOptions = {}): OciImage {
  const created = rfc3339(options.created ?? 0);
  const config: ImageConfig = {
    created,
    architecture: options.architecture ?? 'amd64',
    os: options.os ?? 'linux',
    config: runtimeConfig(options),
    rootfs: { type: 'layers', diff_ids: layers.map((l) => l.tarDigest) },
    history: layers.map((_, i) => ({ created, created_by: options.createdBy?.[i] ?? '@opkit/oci' })),
  };
  const layerBlobs: Blob[] = layers.map((l) => ({
    descriptor: { mediaType: LAYER_MEDIA_TYPE, digest: l.gzDigest, size: l.size },
    bytes: l.bytes,
  }));
  return ociImage(
    config,
    layerBlobs,
    options.annotations === undefined ? undefined : sortedRecord(options.annotations),
  );
}

/**
 * An OCI image of a config document and its layer blobs: the config serialized compactly as given (the
 * caller fixes its key order) and a manifest referencing it and the layers.
 */
export function ociImage(
  config: ImageConfig,
  layers: readonly Blob[],
  annotations?: Readonly<Record<string, string>>,
): OciImage {
  const configBytes = Buffer.from(JSON.stringify(config), 'utf8');
  const manifest: ImageManifest = {
    schemaVersion: 2,
    mediaType: MediaType.ociManifest,
    config: {
      mediaType: MediaType.ociConfig,
      digest: sha256Digest(configBytes),
      size: configBytes.byteLength,
    },
    layers: layers.map((b) => b.descriptor),
    ...(annotations === undefined ? {} : { annotations }),
  };
  const manifestBytes = Buffer.from(JSON.stringify(manifest), 'utf8');
  return {
    mediaType: MediaType.ociManifest,
    digest: sha256Digest(manifestBytes),
    manifest,
    manifestBytes,
    config,
    configBytes,
    layers: [...layers],
  };
}

/**
 * The `config` object of an image config. Keys follow the OCI image spec's order (`User`, `ExposedPorts`, `Env`,
 * `Entrypoint`, `Cmd`, `WorkingDir`, `Labels`) whatever the order of `options`, so the serialized bytes depend
 * only on the values. `Labels` is always written, the other keys only when given.
 */
function runtimeConfig(options: ImageOptions): NonNullable<ImageConfig['config']> {
  const env = options.env?.map((entry) => {
    if (!/^[^=\0]+=/.test(entry)) {
      throw new InputInvalidError(`image env entry ${JSON.stringify(entry)} is not KEY=value`);
    }
    return entry;
  });
  const ports = options.exposedPorts?.map((port) => {
    const match = /^(\d{1,5})(?:\/(tcp|udp|sctp))?$/.exec(port);
    if (match === null || Number(match[1]) < 1 || Number(match[1]) > 65535) {
      throw new InputInvalidError(`exposed port ${JSON.stringify(port)} is not port[/tcp|udp|sctp]`);
    }
    return `${Number(match[1])}/${match[2] ?? 'tcp'}`;
  });
  if (options.workingDir !== undefined && !options.workingDir.startsWith('/')) {
    throw new InputInvalidError(`working directory ${JSON.stringify(options.workingDir)} is not absolute`);
  }
  const exposed: Record<string, Record<string, never>> = {};
  for (const port of [...new Set(ports ?? [])].sort()) exposed[port] = {};
  return {
    ...(options.user === undefined ? {} : { User: options.user }),
    ...(ports === undefined ? {} : { ExposedPorts: exposed }),
    ...(env === undefined ? {} : { Env: [...env] }),
    ...(options.entrypoint === undefined ? {} : { Entrypoint: [...options.entrypoint] }),
    ...(options.cmd === undefined ? {} : { Cmd: [...options.cmd] }),
    ...(options.workingDir === undefined ? {} : { WorkingDir: options.workingDir }),
    Labels: sortedRecord(options.labels ?? {}),
  };
}

/** Whether `mediaType` is an image manifest type this package understands. */
export function isManifestMediaType(mediaType: string): boolean {
  return MANIFEST_TYPES.has(mediaType);
}

/** Whether `mediaType` is an image index / manifest list type. */
export function isIndexMediaType(mediaType: string): boolean {
  return INDEX_TYPES.has(mediaType);
}

/**
 * Parses and validates an image manifest. `mediaType` (e.g. from a `Content-Type` header or a descriptor) is
 * used when the document has no `mediaType` field.
 *
 * @throws ManifestInvalidError naming `where` when the JSON or its shape is invalid.
 */
export function parseManifest(bytes: Uint8Array, where: string, mediaType?: string): ImageManifest {
  const doc = parseJsonObject(bytes, where);
  const type = typeof doc.mediaType === 'string' ? doc.mediaType : mediaType;
  if (type !== undefined && !MANIFEST_TYPES.has(type)) {
    throw new ManifestInvalidError(where, `unsupported manifest media type ${JSON.stringify(type)}`);
  }
  if (doc.schemaVersion !== 2) throw new ManifestInvalidError(where, 'schemaVersion must be 2');
  const config = parseDescriptor(doc.config, where, 'config');
  if (!CONFIG_TYPES.has(config.mediaType)) {
    throw new ManifestInvalidError(
      where,
      `config media type ${JSON.stringify(config.mediaType)} is not an image config`,
    );
  }
  if (!Array.isArray(doc.layers)) throw new ManifestInvalidError(where, 'layers must be an array');
  const layers = doc.layers.map((l: unknown, i: number) => parseDescriptor(l, where, `layers[${i}]`));
  return { ...doc, schemaVersion: 2, config, layers } as ImageManifest;
}

/**
 * Parses and validates an image index or Docker manifest list.
 *
 * @throws ManifestInvalidError naming `where` when the JSON or its shape is invalid.
 */
export function parseIndex(bytes: Uint8Array, where: string, mediaType?: string): ImageIndex {
  const doc = parseJsonObject(bytes, where);
  const type = typeof doc.mediaType === 'string' ? doc.mediaType : mediaType;
  if (type !== undefined && !INDEX_TYPES.has(type)) {
    throw new ManifestInvalidError(where, `unsupported index media type ${JSON.stringify(type)}`);
  }
  if (doc.schemaVersion !== 2) throw new ManifestInvalidError(where, 'schemaVersion must be 2');
  if (!Array.isArray(doc.manifests)) throw new ManifestInvalidError(where, 'manifests must be an array');
  const manifests = doc.manifests.map((m: unknown, i: number) =>
    parseDescriptor(m, where, `manifests[${i}]`),
  );
  return { ...doc, schemaVersion: 2, manifests } as ImageIndex;
}

/**
 * Parses and validates an image config (`architecture`, `os`, `rootfs.diff_ids`).
 *
 * @throws ManifestInvalidError naming `where` when the JSON or its shape is invalid.
 */
export function parseImageConfig(bytes: Uint8Array, where: string): ImageConfig {
  const doc = parseJsonObject(bytes, where);
  if (typeof doc.architecture !== 'string' || typeof doc.os !== 'string') {
    throw new ManifestInvalidError(where, 'image config needs string architecture and os');
  }
  const rootfs = doc.rootfs;
  if (
    !isRecord(rootfs) ||
    !Array.isArray(rootfs.diff_ids) ||
    !rootfs.diff_ids.every((d) => typeof d === 'string')
  ) {
    throw new ManifestInvalidError(where, 'image config needs rootfs.diff_ids');
  }
  if (doc.config !== undefined && doc.config !== null && !isRecord(doc.config)) {
    throw new ManifestInvalidError(where, 'image config "config" must be an object');
  }
  const labels = isRecord(doc.config) ? doc.config.Labels : undefined;
  if (labels !== undefined && labels !== null) {
    if (!isRecord(labels) || !Object.values(labels).every((v) => typeof v === 'string')) {
      throw new ManifestInvalidError(where, 'config.Labels must map strings to strings');
    }
  }
  return doc as unknown as ImageConfig;
}

/**
 * Builds an {@link OciImage} from manifest bytes and a blob source, verifying every blob against its digest
 * and the layer count against `rootfs.diff_ids`.
 *
 * @throws ManifestInvalidError or DigestMismatchError naming `where`.
 */
export async function assembleImage(
  manifestBytes: Uint8Array,
  where: string,
  fetchBlob: (descriptor: Descriptor) => Promise<Uint8Array>,
  mediaType?: string,
): Promise<OciImage> {
  const manifest = parseManifest(manifestBytes, where, mediaType);
  const configBytes = await fetchVerified(manifest.config, where, fetchBlob);
  const config = parseImageConfig(configBytes, `${where} config`);
  if (config.rootfs.diff_ids.length !== manifest.layers.length) {
    throw new ManifestInvalidError(
      where,
      `manifest has ${manifest.layers.length} layers but config has ${config.rootfs.diff_ids.length} diff_ids`,
    );
  }
  const layers: Blob[] = [];
  for (const descriptor of manifest.layers) {
    layers.push({ descriptor, bytes: await fetchVerified(descriptor, where, fetchBlob) });
  }
  return {
    mediaType: manifest.mediaType ?? mediaType ?? MediaType.ociManifest,
    digest: sha256Digest(manifestBytes),
    manifest,
    manifestBytes,
    config,
    configBytes,
    layers,
  };
}

/** The labels of an image config (`config.Labels`), or an empty record. */
export function imageLabels(image: Pick<OciImage, 'config'>): Record<string, string> {
  return { ...(image.config.config?.Labels ?? {}) };
}

async function fetchVerified(
  descriptor: Descriptor,
  where: string,
  fetchBlob: (descriptor: Descriptor) => Promise<Uint8Array>,
): Promise<Uint8Array> {
  const bytes = await fetchBlob(descriptor);
  const actual = sha256Digest(bytes);
  if (actual !== descriptor.digest) throw new DigestMismatchError(`${where} blob`, descriptor.digest, actual);
  if (bytes.byteLength !== descriptor.size) {
    throw new ManifestInvalidError(
      where,
      `blob ${descriptor.digest} has ${bytes.byteLength} bytes, descriptor says ${descriptor.size}`,
    );
  }
  return bytes;
}

function parseDescriptor(value: unknown, where: string, field: string): Descriptor {
  if (!isRecord(value)) throw new ManifestInvalidError(where, `${field} must be a descriptor object`);
  const { mediaType, digest, size } = value;
  if (typeof mediaType !== 'string' || mediaType === '') {
    throw new ManifestInvalidError(where, `${field}.mediaType must be a non-empty string`);
  }
  if (typeof digest !== 'string' || !isDigest(digest)) {
    throw new ManifestInvalidError(where, `${field}.digest ${JSON.stringify(digest)} is not a sha256 digest`);
  }
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) {
    throw new ManifestInvalidError(where, `${field}.size must be a non-negative integer`);
  }
  return value as unknown as Descriptor;
}

function parseJsonObject(bytes: Uint8Array, where: string): Record<string, unknown> {
  let doc: unknown;
  try {
    doc = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch (err) {
    throw new ManifestInvalidError(where, `not JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  if (!isRecord(doc)) throw new ManifestInvalidError(where, 'not a JSON object');
  return doc;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function sortedRecord(record: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of Object.keys(record).sort()) out[key] = record[key]!;
  return out;
}
