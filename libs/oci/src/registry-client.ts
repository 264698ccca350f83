import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type AuthChallenge,
  basicAuthorization,
  type Credentials,
  mergeScopes,
  parseWwwAuthenticate,
} from './auth.js';
import { type BlobRefusals, VerifiedBlobFile } from './blob-file.js';
import { digestHex, sha256Digest } from './digest.js';
import {
  AuthFailedError,
  DigestMismatchError,
  LengthMismatchError,
  ManifestInvalidError,
  NotFoundError,
  OciError,
  RegistryError,
  RegistryUnreachableError,
} from './errors.js';
import {
  BodyLengthError,
  type HttpResponse,
  HttpTransport,
  type HttpTransportOptions,
  isTransientNetworkError,
} from './http.js';
import {
  assembleImage,
  type Blob,
  type Descriptor,
  type ImageIndex,
  isIndexMediaType,
  isManifestMediaType,
  MediaType,
  type OciImage,
  type Platform,
  parseImageConfig,
  parseIndex,
  parseManifest,
} from './image.js';
import {
  assembleImageIndex,
  assertCompleteIndex,
  formatPlatform,
  type ImagePlatforms,
  imagePlatform,
  imagePlatforms,
  isImageIndex,
  type OciImageIndex,
  platformIndex,
  type ReadIndexOptions,
} from './image-index.js';
import { checkLayoutTags, REF_NAME_ANNOTATION, readLayoutEntry, writeStagedLayout } from './layout.js';
import type { OutputGuard } from './output-directory.js';
import { redact } from './redact.js';
import { DOCKER_HUB, formatReference, type ImageReference, parseReference } from './reference.js';

/** Progress of one blob during a push or pull. */
export interface ProgressEvent {
  /** Blob digest. */
  readonly digest: string;
  /** `upload`: bytes sent so far; `exists`: the registry already had the blob; `download`: blob received. */
  readonly phase: 'upload' | 'exists' | 'download';
  /** Bytes done so far (equals `total` for `exists` and `download`). */
  readonly bytes: number;
  readonly total: number;
}

/**
 * How blobs are uploaded: `monolithic` (POST, then one PUT with the body), `chunked` (POST, PATCH per chunk,
 * PUT `?digest=`), or `auto` (chunked only for blobs larger than `chunkSize`).
 */
export type UploadMode = 'auto' | 'monolithic' | 'chunked';

/** Options of a {@link RegistryClient}. */
export interface RegistryClientOptions extends HttpTransportOptions {
  /**
   * Credentials by registry (`host[:port]` as written in references), or a lookup function given the registry
   * and the repository (empty for a ping).
   */
  readonly credentials?:
    | Readonly<Record<string, Credentials>>
    | ((registry: string, repository: string) => Credentials | undefined | Promise<Credentials | undefined>);
  /**
   * Talk plain HTTP to every registry (`true`), to the listed ones, or to those the function accepts (it may
   * throw to refuse a registry before anything is sent to it). Default: HTTPS everywhere.
   */
  readonly plainHttp?: boolean | readonly string[] | ((registry: string) => boolean);
  /** Retries after a connection error, 429 or 5xx; default 3. */
  readonly retries?: number;
  /** First back-off delay, doubled per retry; default 200 ms. */
  readonly retryDelayMs?: number;
  /** Upper bound of one back-off delay, also for `Retry-After`; default 5000 ms. */
  readonly maxRetryDelayMs?: number;
  /** Default `auto`. */
  readonly uploadMode?: UploadMode;
  /** Chunk size for chunked uploads (raised to the registry's `OCI-Chunk-Min-Length`); default 8 MiB. */
  readonly chunkSize?: number;
  /** Default progress callback for pushes and pulls. */
  readonly onProgress?: (event: ProgressEvent) => void;
  /**
   * The most blob bytes one `pull` or `pullAll` holds in memory; a blob that would go past it is refused
   * before it is fetched (`pullToLayout` and `pullBlob` stream any size to disk). Default 2 GiB.
   */
  readonly maxInMemoryBytes?: number;
}

/** Options of {@link RegistryClient.push}. */
export interface PushOptions {
  /** When pushing a layout directory: the tag or digest to read from it (default: its only manifest). */
  readonly layoutRef?: string;
  readonly uploadMode?: UploadMode;
  readonly chunkSize?: number;
  readonly onProgress?: (event: ProgressEvent) => void;
}

/** Options of {@link RegistryClient.pull}. */
export interface PullOptions {
  /** Platform picked from an image index; default `linux/amd64`. */
  readonly platform?: Platform;
  readonly onProgress?: (event: ProgressEvent) => void;
}

/** Options of {@link RegistryClient.pullToLayout}. */
export interface PullToLayoutOptions extends ReadIndexOptions {
  /** Of an image index, pull this platform's image alone (as `pull` does). */
  readonly platform?: Platform;
  /** The tag of the pulled content in the layout's `index.json`. */
  readonly tag?: string;
  /** How the layout directory is guarded (see `writeLayout`). */
  readonly guard?: OutputGuard;
  readonly onProgress?: (event: ProgressEvent) => void;
  /** Stops the pull (no further request or retry) and leaves the previous layout as it was. */
  readonly signal?: AbortSignal;
  /**
   * The most bytes of configs and layers the pull may download, checked against each blob's descriptor before
   * it is fetched (a download is cut at its descriptor's size). Default: no limit.
   */
  readonly maxBytes?: number;
}

/** What {@link RegistryClient.pullToLayout} wrote. */
export interface PulledToLayout {
  readonly mediaType: string;
  readonly digest: string;
  /** For an image index: each platform's image, in index order. */
  readonly images: ReadonlyArray<{ readonly platform: Platform; readonly digest: string }>;
}

/** Options of {@link RegistryClient.pullAll}. */
export interface PullAllOptions extends ReadIndexOptions {
  readonly onProgress?: (event: ProgressEvent) => void;
}

/** What {@link RegistryClient.push} did. */
export interface PushResult {
  /** The reference the manifest was stored under. */
  readonly reference: string;
  /** Manifest digest. */
  readonly digest: string;
  /** Manifest size in bytes. */
  readonly size: number;
  /** Every blob of the image (of all its images, for an index), in push order, and whether it had to be uploaded. */
  readonly blobs: ReadonlyArray<{
    readonly digest: string;
    readonly size: number;
    readonly uploaded: boolean;
  }>;
  /** For an image index: the manifest digest of each platform's image, in index order. */
  readonly images?: ReadonlyArray<{ readonly platform: Platform; readonly digest: string }>;
}

/** A manifest (or index) as fetched: its exact bytes, media type and digest. */
interface PulledManifest {
  readonly bytes: Buffer;
  readonly mediaType: string;
  readonly digest: string;
}

type AuthState =
  | { readonly kind: 'basic' }
  | { readonly kind: 'bearer'; readonly realm: string; readonly service?: string };

interface Target {
  readonly registry: string;
  readonly repository: string;
  /** Reference used in error messages. */
  readonly display: string;
  readonly base: URL;
  /** Token scope this operation needs, e.g. `repository:a/b:pull,push`; empty for a ping. */
  readonly scope: string;
  /** Ends every request of the operation, and its retries, once aborted. */
  readonly signal?: AbortSignal;
}

interface RequestInit {
  readonly method: string;
  readonly url: string | URL;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: Uint8Array;
  readonly onUploadProgress?: (bytes: number) => void;
  readonly followRedirects?: boolean;
  readonly maxBodyBytes?: number;
  readonly bodySink?: () => Writable;
}

const RETRYABLE_STATUS: ReadonlySet<number> = new Set([429, 500, 502, 503, 504]);
const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;
/** Blobs up to this size are read into memory directly; larger ones stream through a verified file. */
const IN_MEMORY_BLOB_BYTES = 1024 * 1024;
const DEFAULT_MAX_IN_MEMORY_BYTES = 2 * 1024 ** 3;
const MANIFEST_ACCEPT = [
  MediaType.ociManifest,
  MediaType.dockerManifest,
  MediaType.ociIndex,
  MediaType.dockerManifestList,
].join(', ');

/**
 * A client for the OCI distribution API: pushes and pulls images and multi-platform image indexes held in
 * memory.
 *
 * Pushes upload missing blobs first (checked with `HEAD`) and the manifest last, so a failed push never leaves a
 * tag pointing at missing content. Authentication follows the registry's `WWW-Authenticate` challenge:
 * anonymous, basic, or bearer tokens fetched from the challenge's realm (with basic credentials when
 * configured) and cached per registry and scope until they expire. Connection errors, 429 and 5xx answers are
 * retried with exponential back-off, a bounded number of times.
 */
export class RegistryClient {
  readonly #http: HttpTransport;
  readonly #options: RegistryClientOptions;
  readonly #auth = new Map<string, AuthState>();
  readonly #tokens = new Map<string, { readonly token: string; readonly expiresAt: number }>();

  constructor(options: RegistryClientOptions = {}) {
    this.#options = options;
    this.#http = new HttpTransport(options);
  }

  /**
   * Pushes `source` (an in-memory image or image index, or the path of an OCI image layout) to `reference`
   * (`registry/repository[:tag][@digest]`; tag defaults to `latest`). An image index is pushed image by image
   * (blobs, then each manifest by digest) and then the index under the tag, so the tag never names an index
   * whose images are missing.
   *
   * @throws ReferenceInvalidError, RegistryUnreachableError, AuthFailedError, ManifestInvalidError,
   *   DigestMismatchError, RegistryError — all naming the registry and reference; InputInvalidError for an
   *   image index that does not hold all its images.
   */
  async push(
    source: OciImage | OciImageIndex | string,
    reference: string,
    options: PushOptions = {},
  ): Promise<PushResult> {
    const content = typeof source === 'string' ? await readLayoutEntry(source, options.layoutRef) : source;
    const ref = parseReference(reference);
    const t = this.#target(ref, 'pull,push');
    if (ref.digest !== undefined && ref.digest !== content.digest) {
      throw new ManifestInvalidError(
        t.display,
        `reference digest does not match the image's ${content.digest}`,
      );
    }
    if (isImageIndex(content)) assertCompleteIndex(content);
    const onProgress = options.onProgress ?? this.#options.onProgress;
    const mode = options.uploadMode ?? this.#options.uploadMode ?? 'auto';
    const chunkSize = options.chunkSize ?? this.#options.chunkSize ?? 8 * 1024 * 1024;
    if (!Number.isSafeInteger(chunkSize) || chunkSize <= 0) {
      throw new RangeError(`chunkSize must be a positive integer, got ${chunkSize}`);
    }
    const results: Array<{ digest: string; size: number; uploaded: boolean }> = [];
    const done = new Set<string>();
    const pushBlobs = async (image: OciImage): Promise<void> => {
      for (const blob of [...image.layers, { descriptor: image.manifest.config, bytes: image.configBytes }]) {
        const { digest, size } = blob.descriptor;
        if (done.has(digest)) continue;
        done.add(digest);
        if (await this.#blobExists(t, digest)) {
          onProgress?.({ digest, phase: 'exists', bytes: size, total: size });
          results.push({ digest, size, uploaded: false });
          continue;
        }
        await this.#uploadBlob(t, blob, mode, chunkSize, onProgress);
        results.push({ digest, size, uploaded: true });
      }
    };
    const images = isImageIndex(content) ? content.images : [];
    for (const { image } of images) {
      await pushBlobs(image);
      await this.#putManifest(t, image.digest, image.mediaType, image.manifestBytes, image.digest);
    }
    const bytes = isImageIndex(content) ? content.indexBytes : content.manifestBytes;
    if (!isImageIndex(content)) await pushBlobs(content);
    await this.#putManifest(t, ref.tag ?? ref.digest ?? 'latest', content.mediaType, bytes, content.digest);
    return {
      reference: formatReference(
        ref.tag === undefined && ref.digest === undefined ? { ...ref, tag: 'latest' } : ref,
      ),
      digest: content.digest,
      size: bytes.byteLength,
      blobs: results,
      ...(isImageIndex(content)
        ? { images: images.map(({ platform, image }) => ({ platform, digest: image.digest })) }
        : {}),
    };
  }

  /**
   * Pulls `reference` into memory, verifying the manifest and every blob against their digests. An image index
   * is resolved to the manifest for `options.platform` (default `linux/amd64`).
   *
   * @throws NotFoundError, RegistryUnreachableError, AuthFailedError, ManifestInvalidError,
   *   DigestMismatchError, RegistryError — all naming the registry and reference.
   */
  async pull(reference: string, options: PullOptions = {}): Promise<OciImage> {
    const ref = parseReference(reference);
    const t = this.#target(ref, 'pull');
    const onProgress = options.onProgress ?? this.#options.onProgress;
    const top = await this.#getManifest(t, ref.digest ?? ref.tag ?? 'latest');
    if (ref.digest !== undefined && top.digest !== ref.digest) {
      throw new DigestMismatchError(`${t.display} manifest`, ref.digest, top.digest);
    }
    const manifest = await this.#platformManifest(t, top, options.platform);
    return assembleImage(manifest.bytes, t.display, this.#blobFetcher(t, onProgress), manifest.mediaType);
  }

  /**
   * Pulls `reference` into the OCI layout `dir` (written as `writeLayout` writes, under the same rules),
   * streaming every blob into it with its digest checked on the way, so memory stays bounded whatever the
   * image's size. With `options.platform`, an image index gives that platform's image alone (as `pull`);
   * otherwise the index with the platforms `options.platforms` accepts (a new OCI index of those when some are
   * left out). The layout tags the pulled content `options.tag`.
   *
   * @throws NotFoundError, RegistryUnreachableError, AuthFailedError, ManifestInvalidError,
   *   DigestMismatchError, LengthMismatchError, RegistryError — all naming the registry and reference;
   *   OutputDirectoryError when `dir` may not be written.
   */
  async pullToLayout(
    reference: string,
    dir: string,
    options: PullToLayoutOptions = {},
  ): Promise<PulledToLayout> {
    const ref = parseReference(reference);
    checkLayoutTags(resolve(dir), [options.tag]);
    options.signal?.throwIfAborted();
    const t = this.#target(ref, 'pull', options.signal);
    const onProgress = options.onProgress ?? this.#options.onProgress;
    const top = await this.#getManifest(t, ref.digest ?? ref.tag ?? 'latest');
    if (ref.digest !== undefined && top.digest !== ref.digest) {
      throw new DigestMismatchError(`${t.display} manifest`, ref.digest, top.digest);
    }
    const annotations =
      options.tag === undefined ? {} : { annotations: { [REF_NAME_ANNOTATION]: options.tag } };
    let pulled: PulledToLayout | undefined;
    const staged = writeStagedLayout(
      dir,
      async (blobs) => {
        const store = new LayoutBlobStore(blobs);
        let total = 0;
        const stream = async (descriptor: Descriptor): Promise<void> => {
          if (store.has(descriptor.digest)) return;
          total += descriptor.size;
          if (options.maxBytes !== undefined && total > options.maxBytes) {
            throw new ManifestInvalidError(
              t.display,
              `blob ${descriptor.digest} of ${descriptor.size} bytes takes the image past the ${options.maxBytes} bytes this pull allows`,
            );
          }
          await this.#downloadBlob(t, descriptor, store.path(descriptor.digest));
          onProgress?.({
            digest: descriptor.digest,
            phase: 'download',
            bytes: descriptor.size,
            total: descriptor.size,
          });
        };
        // An image: its layers and config streamed, the config read back (small) for its platform.
        const storeImage = async (manifest: PulledManifest, where: string): Promise<Platform> => {
          const parsed = parseManifest(manifest.bytes, where, manifest.mediaType);
          if (parsed.config.size > MAX_MANIFEST_BYTES) {
            throw new ManifestInvalidError(where, `config larger than ${MAX_MANIFEST_BYTES} bytes`);
          }
          await stream(parsed.config);
          const config = parseImageConfig(await store.read(parsed.config.digest), `${where} config`);
          if (config.rootfs.diff_ids.length !== parsed.layers.length) {
            throw new ManifestInvalidError(
              where,
              `manifest has ${parsed.layers.length} layers but config has ${config.rootfs.diff_ids.length} diff_ids`,
            );
          }
          for (const layer of parsed.layers) await stream(layer);
          await store.write(manifest.digest, manifest.bytes);
          return imagePlatform({ config });
        };
        const single = isIndexMediaType(top.mediaType) ? undefined : top;
        const chosen =
          single ??
          (options.platform === undefined
            ? undefined
            : await this.#platformManifest(t, top, options.platform));
        if (chosen !== undefined) {
          await storeImage(chosen, t.display);
          pulled = { mediaType: chosen.mediaType, digest: chosen.digest, images: [] };
          return [
            {
              mediaType: chosen.mediaType,
              digest: chosen.digest,
              size: chosen.bytes.byteLength,
              ...annotations,
            },
          ];
        }
        const index = parseIndex(top.bytes, t.display, top.mediaType);
        const images: Array<
          Pick<Descriptor, 'mediaType' | 'digest' | 'size'> & {
            readonly platform: Platform;
            readonly own: Platform;
          }
        > = [];
        for (const descriptor of index.manifests) {
          if (isIndexMediaType(descriptor.mediaType)) {
            throw new ManifestInvalidError(
              t.display,
              `nested image index ${descriptor.digest} is not supported`,
            );
          }
          if (!isManifestMediaType(descriptor.mediaType)) continue;
          if (descriptor.platform !== undefined && options.platforms?.(descriptor.platform) === false)
            continue;
          const manifest = await this.#getManifest(t, descriptor.digest);
          if (manifest.digest !== descriptor.digest) {
            throw new DigestMismatchError(`${t.display} manifest`, descriptor.digest, manifest.digest);
          }
          const own = await storeImage(manifest, `${t.display}@${descriptor.digest}`);
          const platform = descriptor.platform ?? own;
          if (descriptor.platform === undefined && options.platforms?.(platform) === false) continue;
          images.push({
            mediaType: manifest.mediaType,
            digest: manifest.digest,
            size: manifest.bytes.byteLength,
            platform,
            own,
          });
        }
        if (images.length === 0) {
          throw new ManifestInvalidError(
            t.display,
            'image index has no manifest for the platforms asked for',
          );
        }
        // Some platforms left out: a new index of those pulled (the registry's names images the layout lacks).
        const partial = images.length < index.manifests.length;
        const written = partial
          ? {
              mediaType: MediaType.ociIndex,
              ...platformIndex(images.map(({ own, ...rest }) => ({ ...rest, platform: own }))),
            }
          : { mediaType: top.mediaType, digest: top.digest, indexBytes: top.bytes };
        await store.write(written.digest, written.indexBytes);
        pulled = {
          mediaType: written.mediaType,
          digest: written.digest,
          images: images.map(({ platform, own, digest }) => ({ platform: partial ? own : platform, digest })),
        };
        return [
          {
            mediaType: written.mediaType,
            digest: written.digest,
            size: written.indexBytes.byteLength,
            ...annotations,
          },
        ];
      },
      options.guard,
    );
    // Stopped: the caller's reason, not the layout's failure it caused.
    await staged.catch((err: unknown) => {
      options.signal?.throwIfAborted();
      throw err;
    });
    // Set by the stage, which ran to its end.
    return pulled as PulledToLayout;
  }

  /**
   * Pulls `reference` with every platform it has: a single image, or an image index with each image it lists
   * (only the platforms `options.platforms` accepts are fetched). Every manifest and blob is verified against
   * its digest.
   *
   * @throws NotFoundError, RegistryUnreachableError, AuthFailedError, ManifestInvalidError,
   *   DigestMismatchError, RegistryError — all naming the registry and reference.
   */
  async pullAll(reference: string, options: PullAllOptions = {}): Promise<OciImage | OciImageIndex> {
    const ref = parseReference(reference);
    const t = this.#target(ref, 'pull');
    const fetchBlob = this.#blobFetcher(t, options.onProgress ?? this.#options.onProgress);
    const manifest = await this.#getManifest(t, ref.digest ?? ref.tag ?? 'latest');
    if (ref.digest !== undefined && manifest.digest !== ref.digest) {
      throw new DigestMismatchError(`${t.display} manifest`, ref.digest, manifest.digest);
    }
    if (!isIndexMediaType(manifest.mediaType)) {
      return assembleImage(manifest.bytes, t.display, fetchBlob, manifest.mediaType);
    }
    const fetchManifest = async (descriptor: Descriptor): Promise<Uint8Array> =>
      (await this.#getManifest(t, descriptor.digest)).bytes;
    return assembleImageIndex(
      manifest.bytes,
      t.display,
      { manifest: fetchManifest, blob: fetchBlob },
      manifest.mediaType,
      options,
    );
  }

  /**
   * The platforms `reference` provides (see `imagePlatforms`): its index's entries, or a single image's
   * config. Only the index (or manifest) and, where the index names no platform, a manifest and its config
   * are fetched, each within the size a manifest may have; no layer is read.
   *
   * @throws NotFoundError, RegistryUnreachableError, AuthFailedError, ManifestInvalidError,
   *   DigestMismatchError, RegistryError — all naming the registry and reference.
   */
  async platforms(reference: string): Promise<ImagePlatforms> {
    const ref = parseReference(reference);
    const t = this.#target(ref, 'pull');
    const top = await this.#getManifest(t, ref.digest ?? ref.tag ?? 'latest');
    if (ref.digest !== undefined && top.digest !== ref.digest) {
      throw new DigestMismatchError(`${t.display} manifest`, ref.digest, top.digest);
    }
    return imagePlatforms(top.bytes, top.mediaType, t.display, {
      manifest: async (descriptor) => {
        const manifest = await this.#getManifest(t, descriptor.digest);
        if (manifest.digest !== descriptor.digest) {
          throw new DigestMismatchError(`${t.display} manifest`, descriptor.digest, manifest.digest);
        }
        return manifest.bytes;
      },
      config: async (descriptor) => {
        if (descriptor.size > MAX_MANIFEST_BYTES) {
          throw new ManifestInvalidError(t.display, `config larger than ${MAX_MANIFEST_BYTES} bytes`);
        }
        return this.#getBlob(t, descriptor);
      },
    });
  }

  /**
   * Resolves `reference` to the descriptor of its manifest (media type, digest, size) with a `HEAD` request,
   * falling back to `GET` when the registry sends no `Docker-Content-Digest`.
   */
  async resolve(reference: string): Promise<Descriptor> {
    const ref = parseReference(reference);
    const t = this.#target(ref, 'pull');
    const res = await this.#request(t, {
      method: 'HEAD',
      url: `/v2/${t.repository}/manifests/${ref.digest ?? ref.tag ?? 'latest'}`,
      headers: { accept: MANIFEST_ACCEPT },
    });
    if (res.status !== 200) throw this.#failure(t, res, 'manifest');
    const digest = res.headers['docker-content-digest']?.[0];
    const size = Number(res.headers['content-length']?.[0]);
    const mediaType = contentType(res);
    if (digest === undefined || !Number.isSafeInteger(size) || mediaType === undefined) {
      const full = await this.#getManifest(t, ref.digest ?? ref.tag ?? 'latest');
      return { mediaType: full.mediaType, digest: full.digest, size: full.bytes.byteLength };
    }
    return { mediaType, digest, size };
  }

  /**
   * Streams the blob `descriptor` names from the repository of `reference` into `file`, hashing it on the
   * way: memory stays bounded whatever its size, a byte past the descriptor's size ends the download, and
   * `file` appears only when size and digest match (a refused or failed download leaves no file).
   *
   * @throws DigestMismatchError, LengthMismatchError, NotFoundError, RegistryUnreachableError,
   *   AuthFailedError, RegistryError — all naming the registry and reference.
   */
  async pullBlob(reference: string, descriptor: Descriptor, file: string): Promise<void> {
    const t = this.#target(parseReference(reference), 'pull');
    await this.#downloadBlob(t, descriptor, file);
  }

  /**
   * Checks that `registry` (`host[:port]`) speaks the distribution API and accepts the configured credentials
   * (`GET /v2/`).
   */
  async ping(registry: string): Promise<void> {
    const t: Target = {
      registry,
      repository: '',
      display: registry,
      base: this.#baseUrl(registry),
      scope: '',
    };
    const res = await this.#request(t, { method: 'GET', url: '/v2/' });
    if (res.status !== 200) throw this.#failure(t, res, 'API version check');
  }

  /** `manifest` itself, or for an image index the manifest of `platform` (default `linux/amd64`) it lists. */
  async #platformManifest(
    t: Target,
    manifest: PulledManifest,
    wanted: Platform | undefined,
  ): Promise<PulledManifest> {
    if (!isIndexMediaType(manifest.mediaType)) return manifest;
    const index = parseIndex(manifest.bytes, t.display, manifest.mediaType);
    const platform = wanted ?? { os: 'linux', architecture: 'amd64' };
    const chosen = selectPlatform(index, platform);
    if (chosen === undefined) {
      throw new ManifestInvalidError(
        t.display,
        `image index has no manifest for ${formatPlatform(platform)}`,
      );
    }
    const picked = await this.#getManifest(t, chosen.digest);
    if (picked.digest !== chosen.digest) {
      throw new DigestMismatchError(`${t.display} manifest`, chosen.digest, picked.digest);
    }
    return picked;
  }

  /** Closes pooled connections. The client stays usable; new requests open new connections. */
  close(): void {
    this.#http.close();
  }

  async #blobExists(t: Target, digest: string): Promise<boolean> {
    const res = await this.#request(t, {
      method: 'HEAD',
      url: `/v2/${t.repository}/blobs/${digest}`,
      followRedirects: true,
    });
    if (res.status === 200) return true;
    if (res.status === 404) return false;
    throw this.#failure(t, res, `blob ${digest} check`);
  }

  async #uploadBlob(
    t: Target,
    blob: Blob,
    mode: UploadMode,
    chunkSize: number,
    onProgress: ((event: ProgressEvent) => void) | undefined,
  ): Promise<void> {
    const { digest } = blob.descriptor;
    const total = blob.bytes.byteLength;
    const emit = (bytes: number): void => onProgress?.({ digest, phase: 'upload', bytes, total });
    const started = await this.#request(t, { method: 'POST', url: `/v2/${t.repository}/blobs/uploads/` });
    if (started.status !== 202) throw this.#failure(t, started, `blob ${digest} upload start`);
    let location = uploadLocation(t, started);
    const minChunk = Number(started.headers['oci-chunk-min-length']?.[0] ?? 0);
    const chunked = mode === 'chunked' || (mode === 'auto' && total > chunkSize);
    if (!chunked) {
      const res = await this.#request(t, {
        method: 'PUT',
        url: withDigest(location, digest),
        headers: { 'content-type': 'application/octet-stream' },
        body: blob.bytes,
        onUploadProgress: emit,
      });
      if (res.status !== 201) throw this.#failure(t, res, `blob ${digest} upload`);
      if (total === 0) emit(0);
      return;
    }
    const size = Number.isSafeInteger(minChunk) && minChunk > chunkSize ? minChunk : chunkSize;
    let offset = 0;
    let recoveries = 0;
    while (offset < total) {
      const start = offset;
      const end = Math.min(start + size, total);
      const res = await this.#request(t, {
        method: 'PATCH',
        url: location,
        headers: { 'content-type': 'application/octet-stream', 'content-range': `${start}-${end - 1}` },
        body: blob.bytes.subarray(start, end),
        onUploadProgress: (n) => emit(start + n),
      });
      if (res.status === 416 && recoveries < (this.#options.retries ?? 3)) {
        // The registry holds a different amount of data than we think (e.g. a retried chunk had landed):
        // ask it for the upload's range and continue from there.
        recoveries++;
        const status = await this.#request(t, { method: 'GET', url: location });
        if (status.status !== 204) throw this.#failure(t, status, `blob ${digest} upload status`);
        location = uploadLocation(t, status, location);
        offset = rangeEnd(status.headers.range?.[0]);
        continue;
      }
      if (res.status !== 202) throw this.#failure(t, res, `blob ${digest} chunk ${start}-${end - 1}`);
      location = uploadLocation(t, res, location);
      offset = end;
    }
    const res = await this.#request(t, { method: 'PUT', url: withDigest(location, digest) });
    if (res.status !== 201) throw this.#failure(t, res, `blob ${digest} upload commit`);
    if (total === 0) emit(0);
  }

  async #putManifest(
    t: Target,
    tagOrDigest: string,
    mediaType: string,
    bytes: Uint8Array,
    digest: string,
  ): Promise<void> {
    const res = await this.#request(t, {
      method: 'PUT',
      url: `/v2/${t.repository}/manifests/${tagOrDigest}`,
      headers: { 'content-type': mediaType },
      body: bytes,
    });
    if (res.status < 200 || res.status > 299) throw this.#failure(t, res, 'manifest upload', true);
    const stored = res.headers['docker-content-digest']?.[0];
    if (stored !== undefined && stored !== digest) throw new DigestMismatchError(t.display, digest, stored);
  }

  async #getManifest(t: Target, tagOrDigest: string): Promise<PulledManifest> {
    const res = await this.#request(t, {
      method: 'GET',
      url: `/v2/${t.repository}/manifests/${tagOrDigest}`,
      maxBodyBytes: MAX_MANIFEST_BYTES,
      headers: { accept: MANIFEST_ACCEPT },
    });
    if (res.status !== 200) throw this.#failure(t, res, 'manifest');
    if (res.body.byteLength > MAX_MANIFEST_BYTES) {
      throw new ManifestInvalidError(t.display, `manifest larger than ${MAX_MANIFEST_BYTES} bytes`);
    }
    let mediaType = contentType(res);
    try {
      const doc: unknown = JSON.parse(res.body.toString('utf8'));
      if (
        typeof doc === 'object' &&
        doc !== null &&
        'mediaType' in doc &&
        typeof doc.mediaType === 'string'
      ) {
        mediaType = doc.mediaType;
      }
    } catch {
      throw new ManifestInvalidError(t.display, 'manifest is not JSON');
    }
    if (mediaType === undefined || !(isManifestMediaType(mediaType) || isIndexMediaType(mediaType))) {
      throw new ManifestInvalidError(
        t.display,
        `unsupported manifest media type ${JSON.stringify(mediaType)}`,
      );
    }
    const digest = sha256Digest(res.body);
    const announced = res.headers['docker-content-digest']?.[0];
    if (announced?.startsWith('sha256:') && announced !== digest) {
      throw new DigestMismatchError(`${t.display} manifest`, announced, digest);
    }
    return { bytes: res.body, mediaType, digest };
  }

  #blobFetcher(
    t: Target,
    onProgress: ((event: ProgressEvent) => void) | undefined,
  ): (descriptor: Descriptor) => Promise<Uint8Array> {
    const limit = this.#options.maxInMemoryBytes ?? DEFAULT_MAX_IN_MEMORY_BYTES;
    let held = 0;
    return async (descriptor) => {
      held += descriptor.size;
      if (held > limit) {
        throw new ManifestInvalidError(
          t.display,
          `blob ${descriptor.digest} of ${descriptor.size} bytes takes the image past the ${limit} bytes a pull holds in memory`,
        );
      }
      const bytes = await this.#getBlob(t, descriptor);
      onProgress?.({
        digest: descriptor.digest,
        phase: 'download',
        bytes: bytes.byteLength,
        total: descriptor.size,
      });
      return bytes;
    };
  }

  /**
   * A blob's verified bytes. Small blobs (configs, most catalog and bundle layers) are read into memory within
   * their descriptor's size; larger ones stream to a temporary file, hashed on the way, so memory stays
   * bounded whatever size the manifest claims, and only content that matches its digest is read back.
   */
  async #getBlob(t: Target, descriptor: Descriptor): Promise<Uint8Array> {
    if (descriptor.size <= IN_MEMORY_BLOB_BYTES) {
      const res = await this.#request(t, {
        method: 'GET',
        url: `/v2/${t.repository}/blobs/${descriptor.digest}`,
        followRedirects: true,
        // A registry that sends more than the descriptor says is not believed, nor buffered.
        maxBodyBytes: descriptor.size,
      });
      if (res.status !== 200) throw this.#failure(t, res, `blob ${descriptor.digest}`);
      // Told apart from a digest mismatch: the registry sent less than the content the descriptor names.
      if (res.body.byteLength < descriptor.size)
        throw blobRefusals(t, descriptor).tooShort(res.body.byteLength);
      return res.body;
    }
    const dir = await mkdtemp(join(tmpdir(), 'opkit-blob-'));
    try {
      const file = join(dir, 'blob');
      await this.#downloadBlob(t, descriptor, file);
      return await readFile(file);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /** Streams a blob into `file`, verified on the way (see {@link VerifiedBlobFile}). */
  async #downloadBlob(t: Target, descriptor: Descriptor, file: string): Promise<void> {
    const refusals = blobRefusals(t, descriptor);
    const res = await this.#request(t, {
      method: 'GET',
      url: `/v2/${t.repository}/blobs/${descriptor.digest}`,
      followRedirects: true,
      maxBodyBytes: descriptor.size,
      bodySink: () => new VerifiedBlobFile(file, descriptor, refusals),
    });
    if (res.status !== 200) throw this.#failure(t, res, `blob ${descriptor.digest}`);
  }

  /**
   * Sends a registry request with authentication (one re-authentication on 401) and bounded retries.
   * Credentials go to the registry's own origin only; a 401 from elsewhere (a storage host a download was
   * redirected to, an upload location on another host) is refused, never taken as the registry's challenge.
   */
  async #request(t: Target, init: RequestInit): Promise<HttpResponse> {
    const url = typeof init.url === 'string' ? new URL(init.url, t.base) : init.url;
    const own = url.origin === t.base.origin;
    let authenticated = false;
    for (;;) {
      const headers: Record<string, string> = { ...init.headers };
      const authorization = own ? await this.#authorization(t) : undefined;
      if (authorization !== undefined) headers.authorization = authorization;
      const res = await this.#sendWithRetries(t, { ...init, url, headers });
      if (res.status !== 401) return res;
      if (res.url.origin !== t.base.origin) {
        throw new AuthFailedError(
          t.registry,
          t.display,
          `${subjectOf(init.method, url)}: ${elsewhere(res)} answered 401; the registry's credentials are not sent there`,
        );
      }
      if (authenticated) {
        throw new AuthFailedError(
          t.registry,
          t.display,
          `${init.method} ${url.pathname} answered 401${errorDetail(res)}`,
        );
      }
      authenticated = true;
      await this.#authenticate(t, res);
    }
  }

  async #sendWithRetries(t: Target, init: RequestInit & { readonly url: URL }): Promise<HttpResponse> {
    const retries = this.#options.retries ?? 3;
    const { signal } = t;
    // Aborted: the caller's reason, whatever the request was doing; no retry.
    const pause = (ms: number): Promise<void> =>
      sleep(ms, undefined, signal === undefined ? {} : { signal }).catch(() => signal?.throwIfAborted());
    for (let attempt = 0; ; attempt++) {
      signal?.throwIfAborted();
      let res: HttpResponse;
      try {
        res = await this.#http.send({ ...init, ...(signal === undefined ? {} : { signal }) });
      } catch (err) {
        signal?.throwIfAborted();
        // Content refused on the way (a digest mismatch, a blob past its size) is final, and already says so.
        if (err instanceof OciError) throw err;
        if (attempt < retries && isTransientNetworkError(err)) {
          await pause(this.#delay(attempt));
          continue;
        }
        const attempts = attempt + 1;
        if (err instanceof BodyLengthError) {
          throw new LengthMismatchError(
            t.registry,
            t.display,
            `${bodyLengthDetail(err, subjectOf(init.method, init.url))}${attempts > 1 ? `, after ${attempts} attempts` : ''}`,
            { cause: err },
          );
        }
        throw new RegistryUnreachableError(
          t.registry,
          t.display,
          `${init.method} ${init.url.origin}${init.url.pathname}: ${errorText(err)}${
            attempts > 1 ? ` (after ${attempts} attempts)` : ''
          }`,
          { cause: err },
        );
      }
      if (RETRYABLE_STATUS.has(res.status) && attempt < retries) {
        await pause(this.#delay(attempt, res.headers['retry-after']?.[0]));
        continue;
      }
      return res;
    }
  }

  #delay(attempt: number, retryAfter?: string): number {
    const max = this.#options.maxRetryDelayMs ?? 5000;
    const seconds = retryAfter === undefined ? Number.NaN : Number(retryAfter);
    if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, max);
    return Math.min((this.#options.retryDelayMs ?? 200) * 2 ** attempt, max);
  }

  async #authorization(t: Target): Promise<string | undefined> {
    const state = this.#auth.get(t.registry);
    if (state === undefined) return undefined;
    if (state.kind === 'basic') {
      const credentials = await this.#credentials(t);
      return credentials === undefined ? undefined : basicAuthorization(credentials);
    }
    const cached = this.#tokens.get(`${t.registry} ${t.scope}`);
    if (cached !== undefined && cached.expiresAt > Date.now()) return `Bearer ${cached.token}`;
    // The registry is known to want a token: get it before sending (and possibly uploading) the request.
    return `Bearer ${await this.#fetchToken(t, state, undefined)}`;
  }

  async #authenticate(t: Target, res: HttpResponse): Promise<void> {
    const challenges = parseWwwAuthenticate(res.headers['www-authenticate'] ?? []);
    const bearer = challenges.find((c) => c.scheme === 'bearer');
    if (bearer !== undefined) {
      const realm = bearer.params.realm;
      if (realm === undefined || realm === '') {
        throw new AuthFailedError(t.registry, t.display, 'bearer challenge has no realm');
      }
      const state: AuthState = {
        kind: 'bearer',
        realm,
        ...(bearer.params.service === undefined ? {} : { service: bearer.params.service }),
      };
      this.#auth.set(t.registry, state);
      await this.#fetchToken(t, state, bearer);
      return;
    }
    if (challenges.some((c) => c.scheme === 'basic')) {
      if ((await this.#credentials(t)) === undefined) {
        throw new AuthFailedError(
          t.registry,
          t.display,
          'registry requires credentials (basic) and none are configured',
        );
      }
      this.#auth.set(t.registry, { kind: 'basic' });
      return;
    }
    const schemes = challenges.map((c) => c.scheme).join(', ');
    throw new AuthFailedError(
      t.registry,
      t.display,
      schemes === ''
        ? '401 without a WWW-Authenticate challenge'
        : `unsupported authentication scheme(s): ${schemes}`,
    );
  }

  async #fetchToken(
    t: Target,
    state: Extract<AuthState, { kind: 'bearer' }>,
    challenge: AuthChallenge | undefined,
  ): Promise<string> {
    let url: URL;
    try {
      url = new URL(state.realm);
    } catch {
      throw new AuthFailedError(t.registry, t.display, `invalid token realm ${JSON.stringify(state.realm)}`);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw new AuthFailedError(t.registry, t.display, `unsupported token realm ${url.href}`);
    }
    if (state.service !== undefined) url.searchParams.set('service', state.service);
    for (const scope of mergeScopes([t.scope, challenge?.params.scope ?? '']))
      url.searchParams.append('scope', scope);
    const credentials = await this.#credentials(t);
    const headers: Record<string, string> = { accept: 'application/json' };
    const realm = `${url.origin}${url.pathname}`;
    let res: HttpResponse;
    if (credentials?.identityToken !== undefined) {
      // docker's OAuth2 exchange: the identity token is a refresh token, posted as a form.
      const form = new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: credentials.identityToken,
        client_id: 'opkit',
        service: state.service ?? '',
        scope: url.searchParams.getAll('scope').join(' '),
      });
      res = await this.#sendWithRetries(t, {
        method: 'POST',
        url: new URL(realm),
        headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
        body: Buffer.from(form.toString(), 'utf8'),
      });
    } else {
      if (credentials !== undefined) headers.authorization = basicAuthorization(credentials);
      res = await this.#sendWithRetries(t, { method: 'GET', url, headers });
    }
    if (res.status === 401 || res.status === 403) {
      const who =
        credentials === undefined
          ? 'anonymous access'
          : credentials.identityToken !== undefined
            ? 'the identity token'
            : `the credentials of ${credentials.username}`;
      throw new AuthFailedError(
        t.registry,
        t.display,
        `token service ${realm} rejected ${who} (${res.status})`,
      );
    }
    if (res.status !== 200) {
      throw new AuthFailedError(t.registry, t.display, `token service ${realm} answered ${res.status}`);
    }
    let token: unknown;
    let expiresIn: unknown;
    try {
      const doc = JSON.parse(res.body.toString('utf8')) as Record<string, unknown>;
      token = doc.token ?? doc.access_token;
      expiresIn = doc.expires_in;
    } catch {
      throw new AuthFailedError(t.registry, t.display, `token service ${realm} answered non-JSON`);
    }
    if (typeof token !== 'string' || token === '') {
      throw new AuthFailedError(t.registry, t.display, `token service ${realm} answered without a token`);
    }
    const lifetime = typeof expiresIn === 'number' && expiresIn > 0 ? expiresIn : 60;
    // Renew a little early so a token does not expire between our check and the registry's.
    const expiresAt = Date.now() + Math.max(lifetime - 10, lifetime / 2) * 1000;
    this.#tokens.set(`${t.registry} ${t.scope}`, { token, expiresAt });
    return token;
  }

  async #credentials(t: Target): Promise<Credentials | undefined> {
    const source = this.#options.credentials;
    if (source === undefined) return undefined;
    return typeof source === 'function' ? await source(t.registry, t.repository) : source[t.registry];
  }

  #baseUrl(registry: string): URL {
    const plain = this.#options.plainHttp;
    const usePlain =
      plain === true ||
      (typeof plain === 'function' ? plain(registry) : Array.isArray(plain) && plain.includes(registry));
    const host = registry === DOCKER_HUB ? 'registry-1.docker.io' : registry;
    return new URL(`${usePlain ? 'http' : 'https'}://${host}/`);
  }

  #target(ref: ImageReference, actions: string, signal?: AbortSignal): Target {
    return {
      registry: ref.registry,
      repository: ref.repository,
      display: formatReference(ref),
      base: this.#baseUrl(ref.registry),
      scope: `repository:${ref.repository}:${actions}`,
      ...(signal === undefined ? {} : { signal }),
    };
  }

  #failure(t: Target, res: HttpResponse, what: string, manifestUpload = false): Error {
    const detail = errorDetail(res);
    const where = res.url.origin === t.base.origin ? '' : ` from ${elsewhere(res)}`;
    if (res.status === 401 || res.status === 403) {
      return new AuthFailedError(t.registry, t.display, `${what} denied (${res.status})${where}${detail}`);
    }
    if (res.status === 404 && !manifestUpload) return new NotFoundError(t.registry, t.display, what);
    if (manifestUpload && res.status === 400) {
      return new ManifestInvalidError(t.display, `registry ${t.registry} rejected the manifest${detail}`);
    }
    return new RegistryError(
      t.registry,
      t.display,
      res.status,
      `${what} answered ${res.status}${where}${detail}`,
    );
  }
}

/** How a blob that is not what its descriptor says is refused, naming the registry and reference. */
function blobRefusals(t: Target, descriptor: Descriptor): BlobRefusals {
  const blob = `blob ${descriptor.digest}`;
  return {
    tooLong: () =>
      new LengthMismatchError(
        t.registry,
        t.display,
        `more than the ${descriptor.size} bytes expected for ${blob}`,
      ),
    tooShort: (received) =>
      new LengthMismatchError(
        t.registry,
        t.display,
        `${received} bytes for ${blob}, its descriptor says ${descriptor.size}`,
      ),
    mismatch: (actual) => new DigestMismatchError(`${t.display} blob`, descriptor.digest, actual),
  };
}

/** The blobs directory of a layout being written: blobs by digest, each written once. */
class LayoutBlobStore {
  readonly #dir: string;
  readonly #held = new Set<string>();

  constructor(dir: string) {
    this.#dir = dir;
  }

  has(digest: string): boolean {
    return this.#held.has(digest);
  }

  /** Where the blob goes; counted as held from now on (a failed download fails the whole layout). */
  path(digest: string): string {
    this.#held.add(digest);
    return join(this.#dir, digestHex(digest));
  }

  async write(digest: string, bytes: Uint8Array): Promise<void> {
    if (this.#held.has(digest)) return;
    await writeFile(this.path(digest), bytes);
  }

  read(digest: string): Promise<Buffer> {
    return readFile(join(this.#dir, digestHex(digest)));
  }
}

function selectPlatform(index: ImageIndex, platform: Platform): Descriptor | undefined {
  const candidates = index.manifests.filter((m) => isManifestMediaType(m.mediaType));
  const exact = candidates.find(
    (m) =>
      m.platform?.os === platform.os &&
      m.platform.architecture === platform.architecture &&
      (platform.variant === undefined || m.platform.variant === platform.variant),
  );
  if (exact !== undefined) return exact;
  return candidates.length === 1 && candidates[0]!.platform === undefined ? candidates[0] : undefined;
}

function uploadLocation(t: Target, res: HttpResponse, previous?: URL): URL {
  const location = res.headers.location?.[0];
  if (location === undefined) {
    if (previous !== undefined) return previous;
    throw new RegistryError(
      t.registry,
      t.display,
      res.status,
      'blob upload answered without a Location header',
    );
  }
  return new URL(location, res.url);
}

function withDigest(location: URL, digest: string): URL {
  const url = new URL(location);
  url.searchParams.set('digest', digest);
  return url;
}

/** Offset after an upload's `Range: 0-<last>` header (0 when absent). */
function rangeEnd(range: string | undefined): number {
  const match = range === undefined ? null : /^(?:bytes=)?0-(\d+)$/.exec(range.trim());
  return match === null ? 0 : Number(match[1]) + 1;
}

function contentType(res: HttpResponse): string | undefined {
  const value = res.headers['content-type']?.[0]?.split(';')[0]?.trim();
  return value === '' ? undefined : value;
}

/** `127.0.0.1:9000 (where the registry sent the request)`: a host other than the registry's that answered. */
function elsewhere(res: HttpResponse): string {
  return `${redact(res.url.host)} (where the registry sent the request)`;
}

/** How many of a registry's `errors` a message quotes, and how much of each. */
const MAX_DETAIL_ERRORS = 5;
const MAX_DETAIL_CHARS = 512;

function cut(text: string): string {
  return text.length > MAX_DETAIL_CHARS ? `${text.slice(0, MAX_DETAIL_CHARS)}…` : text;
}

/** ` (CODE: message; …)` from a distribution error body, each part cut to 512 characters, or an empty string. */
function errorDetail(res: HttpResponse): string {
  if (res.body.byteLength === 0) return '';
  try {
    const doc = JSON.parse(res.body.toString('utf8')) as {
      errors?: Array<{ code?: unknown; message?: unknown }>;
    };
    // A registry writes these: a few errors, each cut, are all a message needs of what may be megabytes.
    const errors = Array.isArray(doc.errors) ? doc.errors : [];
    const parts = errors
      .slice(0, MAX_DETAIL_ERRORS)
      .map((e) =>
        `${cut(String(e.code ?? ''))}: ${cut(String(e.message ?? ''))}`.replace(/\s+/g, ' ').trim(),
      );
    if (errors.length > MAX_DETAIL_ERRORS) parts.push(`${errors.length - MAX_DETAIL_ERRORS} more`);
    return parts.length === 0 ? '' : ` (${parts.join('; ')})`;
  } catch {
    const text = res.body.toString('utf8', 0, Math.min(res.body.byteLength, 200)).replace(/\s+/g, ' ').trim();
    return text === '' ? '' : ` (${text})`;
  }
}

/** What a registry URL serves, as messages name it: `blob sha256:…`, `manifest v1`, or the request. */
function subjectOf(method: string, url: URL): string {
  const m = /\/(blobs|manifests)\/([^/]+)$/.exec(url.pathname);
  if (m === null) return `${method} ${url.pathname}`;
  return `${m[1] === 'blobs' ? 'blob' : 'manifest'} ${decodeURIComponent(m[2]!)}`;
}

/** `12 bytes for blob sha256:…, Content-Length said 100`, and the like for bodies too long. */
function bodyLengthDetail(err: BodyLengthError, subject: string): string {
  const said = err.contentLength === undefined ? '' : `, Content-Length said ${err.contentLength}`;
  if (err.kind === 'short') return `${err.received} bytes for ${subject}${said}`;
  if (err.kind === 'longer')
    return `more than the ${err.contentLength} bytes its Content-Length said for ${subject}`;
  return `more than the ${err.limit} bytes expected for ${subject}${said}`;
}

function errorText(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = (err as NodeJS.ErrnoException).code;
  return code !== undefined && !err.message.includes(code) ? `${code} ${err.message}` : err.message;
}
