import type { ImageUser } from './accounts.js';
import { ImageBuildError } from './errors.js';
import type { NodeBinaries } from './node-package.js';
import { ARCHITECTURES, hostArchitecture, IMAGE_ARCHITECTURES, type ImageArchitecture } from './platforms.js';

/** A file copied from the host into an image. */
export interface ImageFile {
  /** Absolute path in the image. */
  readonly path: string;
  /** Path on the host. */
  readonly source: string;
  readonly mode: number;
  /**
   * What identifies the content for the cache key (e.g. `node v24.21.0 linux-x64`). Without it the file's
   * sha256 is used, which for a large file costs a read on every run.
   */
  readonly identity?: string;
}

/** Where the version in an image's tags comes from. */
export type VersionSource =
  /** The upstream release of an extracted Debian package (`5:7.0.15-1~deb12u10` → `7.0.15`). */
  | { readonly debianPackage: string }
  /** A version known up front (a pinned upstream version, or a binary's own). */
  | { readonly fixed: string };

/** Which tags an image gets: the full version, `major.minor`, or `major`. */
export type TagKind = 'version' | 'minor' | 'major';

/**
 * One image, as data: what goes into it and how it runs. The builder has no per-image branches; everything
 * that differs between images is here.
 */
export interface ImageDefinition {
  /** Short name: cache directory prefix and progress label. */
  readonly name: string;
  /** Repositories (with registry) the image is known under; each gets every tag of `tags`. */
  readonly repositories: readonly string[];
  readonly version: VersionSource;
  readonly tags: readonly TagKind[];
  /** First part of `org.opencontainers.image.description`; the Debian packages and versions are appended. */
  readonly description: string;
  /** Debian packages extracted with their dependencies; empty for an image without a Debian root. */
  readonly packages: readonly string[];
  /** Extra dpkg path-excludes for this image. */
  readonly pathExcludes?: readonly string[];
  /**
   * The platforms (`linux/<architecture>`): with more than one, the image is an index of one image each.
   * Default: this machine's architecture only (the images of programs built here).
   */
  readonly architectures?: readonly ImageArchitecture[];
  readonly files?: readonly ImageFile[];
  /** Files that differ by platform (an executable), copied into that platform's image besides `files`. */
  readonly architectureFiles?: Readonly<Partial<Record<ImageArchitecture, readonly ImageFile[]>>>;
  /** Symlinks created in the image; `target` as stored in the link. */
  readonly symlinks?: readonly { readonly path: string; readonly target: string }[];
  /** Directories created (or re-moded) in the image. */
  readonly directories?: readonly { readonly path: string; readonly mode: number }[];
  /** The user the image runs as (`config.User` = `uid:gid`); root when absent. */
  readonly user?: ImageUser;
  readonly entrypoint?: readonly string[];
  readonly cmd?: readonly string[];
  readonly env?: readonly string[];
  readonly workingDir?: string;
  readonly exposedPorts?: readonly string[];
}

/** What the image set is built from besides Debian packages. */
export interface ImageInputs {
  /** A static `pause` executable (built with Go from the node's sources). */
  readonly pauseBinary: string;
  /** The Node.js executables of the operators' base image, one for each of `architectures`. */
  readonly nodes: NodeBinaries;
  /** The platforms of the multi-platform images (Node.js base, operands). @default IMAGE_ARCHITECTURES */
  readonly architectures?: readonly ImageArchitecture[];
  /** With OLM: the programs of OLM's own image and of its `opm` image. */
  readonly olm?: OlmImageInputs;
  /** With Prometheus: the Prometheus Operator's programs and Prometheus'. */
  readonly prometheus?: PrometheusImageInputs;
}

/** Static executables built from the Prometheus Operator's and Prometheus' Go modules. */
export interface PrometheusImageInputs {
  /** The operator's release, e.g. `0.85.0` (its images are tagged `v0.85.0`). */
  readonly operatorVersion: string;
  /** Prometheus' release, e.g. `3.16.0`. */
  readonly prometheusVersion: string;
  readonly operator: string;
  /** The sidecar of Prometheus pods that reloads the configuration the operator writes. */
  readonly configReloader: string;
  readonly prometheus: string;
}

/** Static executables built from OLM's and operator-registry's Go modules. */
export interface OlmImageInputs {
  readonly olmVersion: string;
  readonly opmVersion: string;
  /** OLM's operators: `olm` (CSVs, OperatorGroups) and `catalog` (catalogs, Subscriptions, InstallPlans). */
  readonly olm: string;
  readonly catalog: string;
  /** The aggregated API server of `packages.operators.coreos.com` (PackageManifests). */
  readonly packageServer: string;
  /** `cpb`: copies a bundle image's manifests out (bundle-unpack Jobs). */
  readonly cpb: string;
  /** `copy-content`: copies a catalog image's content out (`grpcPodConfig.extractContent`). */
  readonly copyContent: string;
  readonly opm: string;
  readonly grpcHealthProbe: string;
}

/** Docker's default search path, which the official Debian-based images set too. */
const DEFAULT_PATH = 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** iconv modules for legacy charsets, pulled in with libc6; nothing in these images converts charsets. */
const GCONV = '/usr/lib/*/gconv/*';

/** busybox applets linked into `/bin`, the ones tests and probes use and a few for poking around. */
// biome-ignore format: one applet per line would make the list fifty lines long
const BUSYBOX_APPLETS: readonly string[] = [
  '[', 'awk', 'cat', 'chmod', 'cp', 'cut', 'date', 'df', 'dirname', 'du', 'echo', 'env', 'false', 'find',
  'grep', 'head', 'hostname', 'httpd', 'id', 'kill', 'ln', 'ls', 'mkdir', 'mv', 'nc', 'nslookup', 'ping',
  'printf', 'ps', 'pwd', 'rm', 'sed', 'sh', 'sleep', 'sort', 'tail', 'tee', 'test', 'timeout', 'touch', 'tr',
  'true', 'uname', 'vi', 'wc', 'wget', 'whoami', 'xargs',
];

/**
 * The images the test cluster's pods run: stand-ins for the upstream images of the same names (same repository,
 * same user ids, same ports), built from Debian packages of the host's release.
 */
export function clusterImageDefinitions(inputs: ImageInputs): ImageDefinition[] {
  const architectures = inputs.architectures ?? IMAGE_ARCHITECTURES;
  const nodes = architectures.map((architecture) => {
    const node = inputs.nodes[architecture];
    if (node === undefined) throw new ImageBuildError(`the node image needs a Node.js for ${architecture}`);
    return { architecture, node };
  });
  const nodeVersion = nodes[0]?.node.version ?? 'none';
  return [
    {
      name: 'pause',
      repositories: ['registry.k8s.io/pause'],
      version: { fixed: '3.10.1' },
      tags: ['version'],
      description: 'Pod sandbox: holds the namespaces open and reaps orphans',
      packages: [],
      files: [{ path: '/pause', source: inputs.pauseBinary, mode: 0o755 }],
      // Upstream's numeric user: pause needs no privileges and no /etc/passwd.
      user: { uid: 65535, gid: 65535 },
      entrypoint: ['/pause'],
    },
    {
      name: 'busybox',
      repositories: ['docker.io/library/busybox'],
      version: { debianPackage: 'busybox-static' },
      tags: ['version', 'minor'],
      description: 'BusyBox shell and tools (sh, nc, httpd, wget, …)',
      packages: ['busybox-static'],
      symlinks: BUSYBOX_APPLETS.map((applet) => ({ path: `/bin/${applet}`, target: 'busybox' })),
      directories: [{ path: '/tmp', mode: 0o1777 }],
      // Runs as root, like the upstream image.
      env: [DEFAULT_PATH],
      cmd: ['sh'],
    },
    {
      name: 'memcached',
      repositories: ['docker.io/library/memcached'],
      version: { debianPackage: 'memcached' },
      tags: ['version', 'minor'],
      description: 'Memcached',
      packages: ['memcached'],
      architectures,
      // memcached depends on perl only for memcached-tool; the server never loads its 50 MB of modules.
      pathExcludes: ['/usr/share/perl/*', '/usr/lib/*/perl/*', '/usr/lib/*/libperl.so*', GCONV],
      // The official image's memcache user (11211:11211); operators run the server with command ['memcached'].
      user: { uid: 11211, gid: 11211, name: 'memcache' },
      env: [DEFAULT_PATH],
      cmd: ['memcached'],
      exposedPorts: ['11211/tcp'],
    },
    {
      name: 'redis',
      repositories: ['docker.io/library/redis'],
      version: { debianPackage: 'redis-server' },
      tags: ['version', 'minor'],
      description: 'Redis server and redis-cli',
      // redis-cli comes from redis-tools: exec probes and tests use it.
      packages: ['redis-server', 'redis-tools'],
      architectures,
      pathExcludes: [GCONV],
      // The official Debian-based image's redis user (999:999) and writable /data working directory.
      user: { uid: 999, gid: 999, name: 'redis', home: '/data' },
      directories: [{ path: '/data', mode: 0o777 }],
      workingDir: '/data',
      env: [DEFAULT_PATH],
      cmd: ['redis-server'],
      exposedPorts: ['6379/tcp'],
    },
    {
      name: 'node',
      // Under docker.io/opkit/… so that the local mirror stores it as opkit/node, next to nothing upstream.
      repositories: ['docker.io/opkit/node'],
      version: { fixed: nodeVersion },
      tags: ['version', 'major'],
      description: `Node.js ${nodeVersion} for operators`,
      // node links glibc, libstdc++ and libgcc_s; libstdc++6 brings the other two.
      packages: ['libstdc++6'],
      pathExcludes: [GCONV],
      architectures,
      architectureFiles: Object.fromEntries(
        nodes.map(({ architecture, node }) => [
          architecture,
          [
            {
              path: '/usr/local/bin/node',
              source: node.path,
              mode: 0o755,
              identity: `node v${node.version} linux-${ARCHITECTURES[architecture].node}`,
            },
          ],
        ]),
      ),
      // distroless' nonroot user. Layers carry no owners, so its home is open to it the way /tmp is.
      user: { uid: 65532, gid: 65532, name: 'nonroot', home: '/home/nonroot' },
      directories: [
        { path: '/tmp', mode: 0o1777 },
        { path: '/home/nonroot', mode: 0o1777 },
      ],
      env: ['PATH=/usr/local/bin:/usr/bin:/bin'],
      entrypoint: ['/usr/local/bin/node'],
    },
    ...(inputs.olm === undefined ? [] : olmImageDefinitions(inputs.olm)),
    ...(inputs.prometheus === undefined ? [] : prometheusImageDefinitions(inputs.prometheus)),
  ];
}

/**
 * One platform's part of a definition: `architectures` narrowed to `architecture` and that platform's files
 * added to `files`. Its {@link definitionKey} is the cache key of that platform's image.
 *
 * @throws ImageBuildError when the definition is not built for `architecture`.
 */
export function definitionForArchitecture(
  definition: ImageDefinition,
  architecture: ImageArchitecture,
): ImageDefinition {
  const { architectureFiles, ...rest } = definition;
  if (!definitionArchitectures(definition).includes(architecture)) {
    throw new ImageBuildError(`image ${definition.name} is not built for ${architecture}`);
  }
  return {
    ...rest,
    architectures: [architecture],
    files: [...(definition.files ?? []), ...(architectureFiles?.[architecture] ?? [])],
  };
}

/** The platforms a definition is built for (this machine's when it names none). */
export function definitionArchitectures(definition: ImageDefinition): readonly ImageArchitecture[] {
  return definition.architectures ?? [hostArchitecture()];
}

/** Where OLM's helper images are known (the upstream repositories, which the node's mirror serves). */
export function olmImageReferences(versions: { readonly olm: string; readonly opm: string }): {
  readonly util: string;
  readonly opm: string;
} {
  return {
    util: `${OLM_UTIL_REPOSITORY}:v${versions.olm}`,
    opm: `${OPM_REPOSITORY}:v${versions.opm}`,
  };
}

const OLM_UTIL_REPOSITORY = 'quay.io/operator-framework/olm';
const OPM_REPOSITORY = 'quay.io/operator-framework/opm';

/**
 * OLM's image and opm's. OLM's holds its operators and utilities at the paths of upstream's Dockerfile, so
 * its install manifests run from it, and the catalog operator uses it as `--util-image` and opm's as
 * `--opmImage`. Upstream builds both on distroless' static:debug image; ours put busybox's `cp` where OLM's
 * pod specs call it (`/bin/cp` in OLM's image, `cp` on the path) and run as upstream's user 1001.
 */
function olmImageDefinitions(olm: OlmImageInputs): ImageDefinition[] {
  const staticBinary = (path: string, source: string): ImageFile => ({ path, source, mode: 0o755 });
  const busyboxCp = { path: '/bin/cp', target: 'busybox' };
  return [
    {
      name: 'olm-util',
      repositories: [OLM_UTIL_REPOSITORY],
      version: { fixed: `v${olm.olmVersion}` },
      tags: ['version'],
      description:
        'OLM: its olm and catalog operators, package-server, and the utilities cpb and copy-content',
      packages: ['busybox-static'],
      files: [
        staticBinary('/bin/olm', olm.olm),
        staticBinary('/bin/catalog', olm.catalog),
        staticBinary('/bin/package-server', olm.packageServer),
        staticBinary('/bin/copy-content', olm.copyContent),
        staticBinary('/bin/cpb', olm.cpb),
      ],
      symlinks: [busyboxCp],
      user: { uid: 1001, gid: 1001 },
      env: [DEFAULT_PATH],
      exposedPorts: ['8080/tcp', '5443/tcp'],
      entrypoint: ['/bin/olm'],
    },
    {
      name: 'opm',
      repositories: [OPM_REPOSITORY],
      version: { fixed: `v${olm.opmVersion}` },
      tags: ['version'],
      description: 'opm, which serves extracted catalogs and extracts bundles, and grpc_health_probe',
      packages: ['busybox-static'],
      files: [staticBinary('/bin/opm', olm.opm), staticBinary('/bin/grpc_health_probe', olm.grpcHealthProbe)],
      symlinks: [busyboxCp],
      // opm serve without a cache directory writes its cache under /tmp.
      directories: [{ path: '/tmp', mode: 0o1777 }],
      user: { uid: 1001, gid: 1001 },
      env: [DEFAULT_PATH],
      entrypoint: ['/bin/opm'],
    },
  ];
}

/** Where the Prometheus Operator's and Prometheus' images are known (the upstream repositories). */
export function prometheusImageReferences(versions: {
  readonly operator: string;
  readonly prometheus: string;
}): { readonly operator: string; readonly configReloader: string; readonly prometheus: string } {
  return {
    operator: `quay.io/prometheus-operator/prometheus-operator:v${versions.operator}`,
    configReloader: `quay.io/prometheus-operator/prometheus-config-reloader:v${versions.operator}`,
    prometheus: `quay.io/prometheus/prometheus:v${versions.prometheus}`,
  };
}

/**
 * The Prometheus Operator's image, its config-reloader's and Prometheus'. Upstream builds them on its busybox
 * image, with each program at `/bin/<name>` (the operator runs the reloader by that path) and user nobody
 * (65534); Prometheus' keeps its data in `/prometheus`, its working directory.
 */
function prometheusImageDefinitions(inputs: PrometheusImageInputs): ImageDefinition[] {
  const references = prometheusImageReferences({
    operator: inputs.operatorVersion,
    prometheus: inputs.prometheusVersion,
  });
  const repository = (reference: string) => reference.slice(0, reference.lastIndexOf(':'));
  const nobody = { uid: 65534, gid: 65534 };
  const program = (name: string, source: string) => ({
    files: [{ path: `/bin/${name}`, source, mode: 0o755 }],
    entrypoint: [`/bin/${name}`],
  });
  return [
    {
      name: 'prometheus-operator',
      repositories: [repository(references.operator)],
      version: { fixed: `v${inputs.operatorVersion}` },
      tags: ['version'],
      description: 'The Prometheus Operator',
      packages: ['busybox-static'],
      ...program('operator', inputs.operator),
      user: nobody,
      env: [DEFAULT_PATH],
      exposedPorts: ['8080/tcp'],
    },
    {
      name: 'prometheus-config-reloader',
      repositories: [repository(references.configReloader)],
      version: { fixed: `v${inputs.operatorVersion}` },
      tags: ['version'],
      description: "The Prometheus Operator's config-reloader, the sidecar of its Prometheus pods",
      packages: ['busybox-static'],
      ...program('prometheus-config-reloader', inputs.configReloader),
      user: nobody,
      env: [DEFAULT_PATH],
    },
    {
      name: 'prometheus',
      repositories: [repository(references.prometheus)],
      version: { fixed: `v${inputs.prometheusVersion}` },
      tags: ['version'],
      description: 'Prometheus (its HTTP API; the web UI assets are not in its Go module)',
      packages: ['busybox-static'],
      ...program('prometheus', inputs.prometheus),
      directories: [{ path: '/prometheus', mode: 0o777 }],
      workingDir: '/prometheus',
      user: nobody,
      env: [DEFAULT_PATH],
      exposedPorts: ['9090/tcp'],
    },
  ];
}
