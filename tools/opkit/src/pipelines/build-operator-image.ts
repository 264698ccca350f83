import { execFile } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import { basename, join, relative, resolve, sep } from 'node:path';
import { promisify } from 'node:util';
import { OPERATOR_NODE_OPTIONS } from '@opkit/controller-runtime/manager';
import {
  type AppendLayersOptions,
  appendLayers,
  formatPlatform,
  type ImageSource,
  imagePlatform,
  isImageIndex,
  type Layer,
  type LayerEntry,
  layerFromEntries,
  loadImageSource,
  OciError,
  type OciImage,
  type OciImageIndex,
  type OutputGuard,
  type Platform,
  parseImageSource,
  parseReference,
  RegistryUnreachableError,
  sourceDateEpoch,
  writeLayout,
} from '@opkit/oci';
import { readOperatorRelease } from '@opkit/olm/action/operator-release';
import { CliError } from '../cli-error.js';
import { isLoopbackHost } from '../loopback.js';
import { bundleOperator } from '../operator-bundle.js';
import { cliRegistryClient } from '../registry-client.js';
import { DEFAULT_BASE_IMAGE, DEFAULT_USER } from './image-defaults.js';

export { DEFAULT_BASE_IMAGE, DEFAULT_USER };
/** Where Node lives in images that do not say (the official `node` images). */
export const FALLBACK_NODE = '/usr/local/bin/node';
/** The operator's bundle inside the image. */
export const APP_MAIN = '/app/main.mjs';
const APP_DIR = '/app';

/** Options of {@link buildOperatorImage}; every one but `operatorDir` and `log` has a default. */
export interface BuildOperatorImageOptions {
  /** The operator's project directory (with package.json). */
  readonly operatorDir: string;
  /** Entry module, relative to `operatorDir`. @default 'src/main.ts' */
  readonly entry?: string;
  /** Base image: a registry reference, or an OCI layout `dir[:ref]`. @default DEFAULT_BASE_IMAGE */
  readonly base?: string;
  /** Tag of the image in the layout. @default `<opkit.image>:<version>` from package.json */
  readonly tag?: string;
  /** OCI layout to write. @default `dist/images/<opkit.package or directory name>` */
  readonly out?: string;
  /**
   * The output-directory rule's view of `out`: the flag naming it and the inputs (default: the operator as
   * `--operator`); a base given as a layout is an input too.
   */
  readonly output?: OutputGuard;
  /** `org.opencontainers.image.version`. @default package.json `version` */
  readonly version?: string;
  /** `org.opencontainers.image.revision`. @default `git rev-parse HEAD` in `operatorDir`, when it works */
  readonly revision?: string;
  /**
   * `org.opencontainers.image.source`. @default package.json `repository`, else the `origin` remote of the
   * operator's git checkout (as an https URL without credentials), when either exists
   */
  readonly source?: string;
  /** Numeric, non-root `uid[:gid]`. @default DEFAULT_USER */
  readonly user?: string;
  /** Absolute path of `node` in the base. @default the base's entrypoint when it is node, else FALLBACK_NODE */
  readonly node?: string;
  /** Flags for node itself, before the bundle. @default OPERATOR_NODE_OPTIONS (small young generation) */
  readonly nodeOptions?: readonly string[];
  /** Arguments the entrypoint passes to the bundle before any of the container's own. @default none */
  readonly args?: readonly string[];
  /**
   * More modules bundled into executables of the image (a `#!` line naming the base's node, mode 0755), e.g.
   * a probe the platform runs by name. Entries are relative to `operatorDir`.
   */
  readonly executables?: readonly { readonly path: string; readonly entry: string }[];
  /** More layers on top of the application layer (e.g. data such as a catalog). */
  readonly layers?: readonly Layer[];
  /** More labels; the OCI labels this command sets win. */
  readonly labels?: Readonly<Record<string, string>>;
  /** Platforms of an index base to build for. @default every linux platform of the base */
  readonly platforms?: readonly Platform[];
  /** Pull the base over HTTP: from every registry, or from the ones listed (a registry on loopback). */
  readonly plainHttp?: boolean | readonly string[];
  /**
   * A base this machine can reach, suggested when the base's registry cannot be reached (offline, DNS): by
   * default the base the current kubeconfig's local cluster records, if it answers within a few seconds.
   */
  readonly reachableBase?: () => Promise<string | undefined>;
  /** Environment for `SOURCE_DATE_EPOCH`. @default process.env */
  readonly env?: NodeJS.ProcessEnv;
  /** Progress lines. */
  readonly log: (line: string) => void;
}

/** What {@link buildOperatorImage} wrote. */
export interface OperatorImage {
  readonly layout: string;
  readonly tag: string;
  /** Digest of the index (for an index base) or of the image. */
  readonly digest: string;
  /** Media type of the index or image manifest. */
  readonly mediaType: string;
  /** Size in bytes of the index or image manifest. */
  readonly size: number;
  readonly images: ReadonlyArray<{ readonly platform: string; readonly digest: string }>;
  /** The application layer: the bundle's size, and the gzip blob's digest and size. */
  readonly layer: { readonly bundleBytes: number; readonly digest: string; readonly size: number };
}

interface OperatorPackage {
  readonly name?: string;
  readonly version?: string;
  readonly license?: string;
  readonly repository?: string | { readonly url?: string };
}

const run = promisify(execFile);

/**
 * Builds an operator's container image the way `ko` does, without Docker: bundles the entry module into one
 * ES module, puts it at `/app/main.mjs` in one reproducible layer on top of a Node base image (every linux
 * platform of a multi-platform base), sets a numeric non-root user, `/app` as working directory, node with
 * `/app/main.mjs` as the command and the OCI labels, and writes the result to an OCI image layout.
 *
 * Equal sources, base and options give an equal digest: the layer's file times are `SOURCE_DATE_EPOCH` (or 0),
 * as is the config's `created`.
 *
 * @throws CliError with an `OPKIT_IMAGE_…` code for a missing operator or entry, a failed bundle, an unreadable
 *   base or one without a linux platform, or a bad option.
 */
export async function buildOperatorImage(o: BuildOperatorImageOptions): Promise<OperatorImage> {
  const operatorDir = resolve(o.operatorDir);
  const pkg = await readOperatorPackage(operatorDir);
  const entryRel = o.entry ?? 'src/main.ts';
  const entry = resolve(operatorDir, entryRel);
  if (!(await isFile(entry))) {
    throw new CliError(
      'OPKIT_IMAGE_ENTRY_MISSING',
      `${relative(process.cwd(), entry)}: no such entry module`,
    );
  }
  const user = checkUser(o.user ?? DEFAULT_USER);
  if (o.node !== undefined && !o.node.startsWith('/')) {
    throw new CliError(
      'OPKIT_IMAGE_OPTION_INVALID',
      `--node must be an absolute path, got ${JSON.stringify(o.node)}`,
    );
  }
  // The release the project states, checked as every command reads it; a project without one (operator-sdk's
  // layout) is named by its directory.
  const release = readOperatorRelease(operatorDir);
  const name = release?.package ?? basename(operatorDir);
  const version = o.version ?? release?.version ?? pkg.version;
  const tag = o.tag ?? `${release?.image ?? name}:${version ?? 'latest'}`;
  const layout = o.out ?? join('dist', 'images', name);
  const epoch = sourceDateEpoch(o.env) ?? 0;
  // Written into the image's history, so spelled the same on every machine and however it was given.
  const entryName = relative(operatorDir, entry).split(sep).join('/');

  o.log(`bundling ${relative(process.cwd(), entry)} to ${APP_MAIN}`);
  const started = performance.now();
  const { code: bundle } = await bundleOperator({ operatorDir, entry });
  o.log(`bundled ${formatBytes(bundle.byteLength)} in ${Math.round(performance.now() - started)} ms`);

  const baseText = o.base ?? DEFAULT_BASE_IMAGE;
  const wanted = platformFilter(o.platforms);
  const { base, source: baseSource } = await loadBase(baseText, wanted, o);
  const baseImages = isImageIndex(base) ? base.images.map((e) => e.image) : [base];
  o.log(
    `base ${baseText}: ${isImageIndex(base) ? 'image index' : 'image'} ${base.digest} (${baseImages
      .map((image) => formatPlatform(imagePlatform(image)))
      .join(', ')})`,
  );

  // Every platform of the base has node at the same path; the first image tells which.
  const node = nodeExecutable(baseImages[0] ?? (base as OciImage), o.node);
  const executables: LayerEntry[] = [];
  for (const executable of o.executables ?? []) {
    const { code } = await bundleOperator({ operatorDir, entry: resolve(operatorDir, executable.entry) });
    executables.push({
      path: executable.path,
      content: Buffer.concat([Buffer.from(`#!${node}\n`), code]),
      mode: 0o755,
    });
  }
  const layer = layerFromEntries(
    [{ type: 'directory', path: 'app' }, { path: 'app/main.mjs', content: bundle }, ...executables],
    { mtime: epoch },
  );
  o.log(`layer ${layer.gzDigest} ${APP_MAIN} (${formatBytes(layer.size)} gzip)`);

  const labels: Record<string, string> = {
    ...o.labels,
    'org.opencontainers.image.title': name,
    'org.opencontainers.image.licenses': pkg.license ?? 'Apache-2.0',
  };
  const revision = o.revision ?? (await gitRevision(operatorDir));
  const source = o.source ?? repositoryUrl(pkg.repository) ?? (await gitOrigin(operatorDir));
  if (version !== undefined) labels['org.opencontainers.image.version'] = version;
  if (revision !== undefined) labels['org.opencontainers.image.revision'] = revision;
  if (source !== undefined) labels['org.opencontainers.image.source'] = source;
  const settings = (image: OciImage): AppendLayersOptions => {
    return {
      created: epoch,
      createdBy: [`opkit image build: ${entryName} bundled to ${APP_MAIN}`],
      user,
      workingDir: APP_DIR,
      // The operator is the entrypoint (which drops the base's Cmd): a Deployment's `args` replace Cmd and
      // must reach the operator, not node.
      entrypoint: [
        nodeExecutable(image, o.node),
        ...(o.nodeOptions ?? OPERATOR_NODE_OPTIONS),
        APP_MAIN,
        ...(o.args ?? []),
      ],
      labels,
      // A local layout path would differ between machines; only a registry reference names the base.
      ...(baseSource.kind === 'registry' ? { baseName: baseSource.reference } : {}),
    };
  };
  const image = appendLayers(base, [layer, ...(o.layers ?? [])], settings);
  await writeLayout(layout, [{ image, tag }], {
    ...o.output,
    inputs: [
      ...(o.output?.inputs ?? [{ name: '--operator', path: operatorDir }]),
      ...(baseSource.kind === 'layout' ? [{ name: '--base', path: baseSource.dir }] : []),
    ],
  });
  const images = isImageIndex(image)
    ? image.images.map((e) => ({ platform: formatPlatform(e.platform), digest: e.image.digest }))
    : [{ platform: formatPlatform(imagePlatform(image)), digest: image.digest }];
  o.log(`wrote ${layout}:${tag}`);
  for (const entry of images) o.log(`  ${entry.platform} ${entry.digest}`);
  o.log(`digest ${image.digest}`);
  return {
    layout,
    tag,
    digest: image.digest,
    mediaType: image.mediaType,
    size: (isImageIndex(image) ? image.indexBytes : image.manifestBytes).byteLength,
    images,
    layer: { bundleBytes: bundle.byteLength, digest: layer.gzDigest, size: layer.size },
  };
}

/**
 * The name and version an operator's image carries by default, as `image build` names it: `opkit.package` and
 * `version` of the project's checked `opkit` record; for a project without one, the directory's name and the
 * package's version (else `latest`).
 */
export async function operatorImageIdentity(
  operatorDir: string,
): Promise<{ readonly name: string; readonly version: string }> {
  const dir = resolve(operatorDir);
  const pkg = await readOperatorPackage(dir);
  const release = readOperatorRelease(dir);
  if (release !== undefined) return { name: release.package, version: release.version };
  return { name: basename(dir), version: pkg.version ?? 'latest' };
}

async function readOperatorPackage(dir: string): Promise<OperatorPackage> {
  const file = join(dir, 'package.json');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new CliError(
      'OPKIT_IMAGE_OPERATOR_INVALID',
      `${file}: missing (--operator names a project with a package.json)`,
    );
  }
  try {
    return JSON.parse(text) as OperatorPackage;
  } catch (error) {
    throw new CliError('OPKIT_IMAGE_OPERATOR_INVALID', `${file}: not JSON (${(error as Error).message})`);
  }
}

/** Reads the base, keeping the platforms `wanted` accepts, and insists on at least one linux image. */
async function loadBase(
  text: string,
  wanted: (platform: Platform) => boolean,
  o: BuildOperatorImageOptions,
): Promise<{ readonly base: OciImage | OciImageIndex; readonly source: ImageSource }> {
  const client = cliRegistryClient({
    plainHttp: o.plainHttp ?? false,
    onProgress: (e) => o.log(`  pulled ${e.digest} (${formatBytes(e.total)})`),
  });
  let base: OciImage | OciImageIndex;
  let source: ImageSource;
  try {
    source = await parseImageSource(text);
    base = await loadImageSource(source, { client, platforms: wanted });
  } catch (error) {
    if (!(error instanceof OciError)) throw error;
    if (error instanceof RegistryUnreachableError) {
      const suggested = await (o.reachableBase ?? localClusterBase)().catch(() => undefined);
      throw new CliError(
        'OPKIT_IMAGE_BASE_UNREACHABLE',
        baseUnreachableMessage(text, error.registry, error.message, suggested),
        { cause: error },
      );
    }
    throw new CliError('OPKIT_IMAGE_BASE_UNREADABLE', `cannot read base image ${text}: ${error.message}`, {
      cause: error,
    });
  } finally {
    client.close();
  }
  const found = isImageIndex(base)
    ? base.index.manifests.map((m) => (m.platform === undefined ? m.mediaType : formatPlatform(m.platform)))
    : [formatPlatform(imagePlatform(base))];
  const usable = isImageIndex(base) ? base.images.length > 0 : wanted(imagePlatform(base));
  if (!usable) {
    throw new CliError(
      'OPKIT_IMAGE_BASE_PLATFORM',
      `base image ${text} has no ${o.platforms === undefined ? 'linux' : 'requested'} platform (it has ${found.join(', ') || 'none'})`,
    );
  }
  return { base, source };
}

/**
 * The one line for a base whose registry cannot be reached: which base, why, and how to choose another
 * (`--base`), naming a base that can be reached when one is known.
 */
export function baseUnreachableMessage(
  base: string,
  registry: string,
  reason: string,
  reachable: string | undefined,
): string {
  const choose =
    reachable === undefined
      ? 'choose a base this machine can reach with --base <registry reference or OCI layout dir[:tag]>'
      : `choose a base this machine can reach with --base, e.g. the local cluster's: --base ${reachable}${
          isLoopbackHost(parseReference(reachable).registry) ? ' --plain-http' : ''
        }`;
  const why = reason.replace(/^registry \S+ unreachable for \S+: /, '');
  return `cannot fetch base image ${base}: ${registry} unreachable (${why}); ${choose}`;
}

/** The base the current kubeconfig's local cluster records, when it answers within 3 seconds. */
async function localClusterBase(): Promise<string | undefined> {
  const { readLocalRegistry } = await import('../local-registry.js');
  return (await readLocalRegistry(undefined, { timeoutMs: 3_000 }))?.baseImage;
}

function platformFilter(platforms: readonly Platform[] | undefined): (platform: Platform) => boolean {
  return (p) =>
    p.os === 'linux' &&
    (platforms === undefined ||
      platforms.some(
        (w) =>
          w.os === p.os &&
          w.architecture === p.architecture &&
          (w.variant === undefined || w.variant === p.variant),
      ));
}

/** The node to run: `--node`, else the base's entrypoint when that is node, else {@link FALLBACK_NODE}. */
function nodeExecutable(image: OciImage, node: string | undefined): string {
  if (node !== undefined) return node;
  const executable = image.config.config?.Entrypoint?.[0];
  if (executable !== undefined && (executable === 'node' || executable.endsWith('/node'))) return executable;
  return FALLBACK_NODE;
}

function checkUser(user: string): string {
  const match = /^(\d+)(?::(\d+))?$/.exec(user);
  if (match === null || Number(match[1]) === 0) {
    throw new CliError(
      'OPKIT_IMAGE_OPTION_INVALID',
      `--user must be a numeric non-root uid[:gid] (Kubernetes verifies runAsNonRoot only for numbers), got ${JSON.stringify(user)}`,
    );
  }
  return user;
}

async function gitRevision(dir: string): Promise<string | undefined> {
  try {
    const { stdout } = await run('git', ['rev-parse', 'HEAD'], { cwd: dir });
    const sha = stdout.trim();
    return /^[0-9a-f]{40,64}$/.test(sha) ? sha : undefined;
  } catch {
    return undefined;
  }
}

async function gitOrigin(dir: string): Promise<string | undefined> {
  try {
    const { stdout } = await run('git', ['config', '--get', 'remote.origin.url'], { cwd: dir });
    return publicUrl(stdout.trim());
  } catch {
    return undefined;
  }
}

/**
 * A repository URL fit for a label: `git@host:path` and `ssh://` become `https://host/path`; credentials, ports
 * and a `.git` suffix are dropped; `undefined` for anything else (local paths, npm shorthands).
 */
export function publicUrl(remote: string): string | undefined {
  const scp = /^[\w.-]+@([\w.-]+):(?!\/)(.+)$/.exec(remote);
  let url: URL;
  try {
    url = new URL(scp === null ? remote : `https://${scp[1]}/${scp[2]}`);
  } catch {
    return undefined;
  }
  if (!['https:', 'http:', 'ssh:', 'git:'].includes(url.protocol)) return undefined;
  const scheme = url.protocol === 'http:' ? 'http' : 'https';
  return `${scheme}://${url.hostname}${url.pathname.replace(/\.git$/, '').replace(/\/$/, '')}`;
}

function repositoryUrl(repository: OperatorPackage['repository']): string | undefined {
  const url = typeof repository === 'string' ? repository : repository?.url;
  return url === undefined || url === '' ? undefined : publicUrl(url.replace(/^git\+/, ''));
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
