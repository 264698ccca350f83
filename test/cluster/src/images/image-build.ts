import { chmod, copyFile, lstat, mkdir, realpath, rm, symlink } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative } from 'node:path';
import { buildImage, layerFromDirectory, type OciImage } from '@opkit/oci';
import { writeAccountFiles } from './accounts.js';
import { buildDebianRootfs, type DebianPackage } from './debian-rootfs.js';
import { releaseVersion, upstreamVersion, versionPrefix } from './debian-version.js';
import { definitionForArchitecture, type ImageDefinition, type TagKind } from './definitions.js';
import { ImageBuildError } from './errors.js';
import { ARCHITECTURES, hostArchitecture, type ImageArchitecture } from './platforms.js';

/** gzip level of every layer: fixed, so equal trees give equal layer digests. */
export const LAYER_COMPRESSION_LEVEL = 6;

/** Where and from what an image is built. */
export interface BuildContext {
  /** Debian release codename. */
  readonly suite: string;
  /** mmdebstrap MIRROR arguments. */
  readonly sources: readonly string[];
  /** The platform's architecture: its Debian packages, and the config's `architecture`. @default this machine's */
  readonly architecture?: ImageArchitecture;
  /** An empty or missing scratch directory; the root filesystem is assembled under it. */
  readonly workDir: string;
  readonly onProgress?: (line: string) => void;
}

/** A built image and the names it goes by. */
export interface DefinitionImage {
  readonly image: OciImage;
  /** Every `repository:tag` of the definition, full references with registry. */
  readonly references: readonly string[];
  /** The version in the tags (upstream release of the named package, or the fixed one). */
  readonly version: string;
  /** Every extracted Debian package, sorted by name; empty for images without a Debian root. */
  readonly packages: readonly DebianPackage[];
}

/**
 * Builds one platform's image from its definition (one architecture: see `definitionForArchitecture`): a Debian root with the definition's packages (or an empty root), our
 * `/etc/passwd` and `/etc/group`, the definition's directories, files and symlinks, as one layer keeping the
 * modes on disk (owners 0:0, fixed mtime) and a config with the definition's runtime settings. Equal
 * definitions and packages give equal digests.
 *
 * @throws ImageToolMissingError without mmdebstrap; ImageBuildError when mmdebstrap fails (naming the
 *   packages) or the definition does not fit what was extracted.
 */
export async function buildDefinitionImage(
  given: ImageDefinition,
  context: BuildContext,
): Promise<DefinitionImage> {
  const architecture = context.architecture ?? hostArchitecture();
  const definition = definitionForArchitecture(given, architecture);
  const root = join(context.workDir, 'rootfs');
  let packages: DebianPackage[] = [];
  if (definition.packages.length > 0) {
    packages = await buildDebianRootfs(root, {
      packages: definition.packages,
      suite: context.suite,
      sources: context.sources,
      architecture: ARCHITECTURES[architecture].debian,
      pathExcludes: definition.pathExcludes ?? [],
      onProgress: (line) => context.onProgress?.(`${definition.name}: ${line}`),
    });
    await writeAccountFiles(root, definition.user);
  } else {
    await mkdir(root, { recursive: true });
  }
  await chmod(root, 0o755);
  for (const dir of definition.directories ?? []) {
    const abs = await insideRoot(root, dir.path);
    await mkdir(abs, { recursive: true });
    await chmod(abs, dir.mode);
  }
  for (const file of definition.files ?? []) {
    const abs = await insideRoot(root, file.path);
    await copyFile(file.source, abs);
    await chmod(abs, file.mode);
  }
  for (const link of definition.symlinks ?? []) {
    const abs = await insideRoot(root, link.path, true);
    await rm(abs, { force: true });
    await symlink(link.target, abs);
  }

  const version = imageVersion(definition, packages);
  const references = definition.repositories.flatMap((repository) =>
    definition.tags.map((kind) => `${repository}:${tagFor(kind, version)}`),
  );
  const layer = await layerFromDirectory(root, {
    preserveMode: true,
    skipSpecialFiles: true,
    compressionLevel: LAYER_COMPRESSION_LEVEL,
  });
  const image = buildImage([layer], {
    labels: {
      'org.opencontainers.image.version': version,
      'org.opencontainers.image.description': imageDescription(definition, packages, context.suite),
    },
    architecture,
    createdBy: [createdBy(definition, context.suite)],
    ...(definition.user === undefined ? {} : { user: `${definition.user.uid}:${definition.user.gid}` }),
    ...(definition.entrypoint === undefined ? {} : { entrypoint: definition.entrypoint }),
    ...(definition.cmd === undefined ? {} : { cmd: definition.cmd }),
    ...(definition.env === undefined ? {} : { env: definition.env }),
    ...(definition.workingDir === undefined ? {} : { workingDir: definition.workingDir }),
    ...(definition.exposedPorts === undefined ? {} : { exposedPorts: definition.exposedPorts }),
  });
  return { image, references, version, packages };
}

/** The version an image is tagged with. */
export function imageVersion(definition: ImageDefinition, packages: readonly DebianPackage[]): string {
  if ('fixed' in definition.version) return definition.version.fixed;
  const name = definition.version.debianPackage;
  const pkg = packages.find((p) => p.name === name);
  if (pkg === undefined) {
    throw new ImageBuildError(
      `image ${definition.name}: package ${name}, which names its version, was not extracted`,
    );
  }
  return releaseVersion(upstreamVersion(pkg.version));
}

/** The tag of one kind for a version: `1.6.18`, `1.6` or `1`. */
export function tagFor(kind: TagKind, version: string): string {
  if (kind === 'version') return version;
  return versionPrefix(version, kind === 'minor' ? 2 : 1);
}

/** `<description> (Debian <suite>: memcached 1.6.18-1+deb12u1, plus 22 dependencies)`. */
function imageDescription(
  definition: ImageDefinition,
  packages: readonly DebianPackage[],
  suite: string,
): string {
  if (packages.length === 0) return definition.description;
  const named = packages.filter((p) => definition.packages.includes(p.name));
  const others = packages.length - named.length;
  const list = named.map((p) => `${p.name} ${p.version}`).join(', ');
  return `${definition.description} (Debian ${suite}: ${list}${others > 0 ? `, plus ${others} dependencies` : ''})`;
}

/** The history line of the image's one layer: how it was made, without host paths. */
function createdBy(definition: ImageDefinition, suite: string): string {
  const steps: string[] = [];
  if (definition.packages.length > 0) {
    steps.push(`mmdebstrap --variant=extract --include=${definition.packages.join(',')} ${suite}`);
  }
  for (const file of definition.files ?? []) steps.push(`COPY ${file.path}`);
  return steps.join(' && ');
}

/**
 * The absolute host path of `path` inside `root`, with its parent directories created. Parents may be
 * symlinks inside the root (`/bin` → `usr/bin`), but nothing may lead out of it: this runs as root. An
 * existing symlink at `path` itself is refused unless `replaceable` (the caller then removes it).
 */
async function insideRoot(root: string, path: string, replaceable = false): Promise<string> {
  if (!path.startsWith('/') || path.split('/').includes('..')) {
    throw new ImageBuildError(`image path ${JSON.stringify(path)} must be absolute and without '..'`);
  }
  const realRoot = await realpath(root);
  const check = async (dir: string): Promise<string> => {
    const real = await realpath(dir);
    const rel = relative(realRoot, real);
    if (rel.startsWith('..') || isAbsolute(rel)) {
      throw new ImageBuildError(`image path ${path} resolves outside the image root (${real})`);
    }
    return real;
  };
  const parent = dirname(join(root, path));
  let existing = parent;
  while (!(await exists(existing))) existing = dirname(existing);
  await check(existing);
  await mkdir(parent, { recursive: true });
  const abs = join(await check(parent), basename(path));
  const st = await lstat(abs).catch(() => undefined);
  if (st?.isSymbolicLink() === true && !replaceable) {
    throw new ImageBuildError(
      `image path ${path} is a symlink in the extracted root; name its target instead`,
    );
  }
  return abs;
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}
