import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { opkitScript } from '../opkit-command.js';
import { cacheRoot } from '../toolchain/cache.js';

const run = promisify(execFile);
const opkit = opkitScript();

/** An operator image pushed to the test cluster's registry. */
export interface PushedOperatorImage {
  /** `<registry>/<repository>:<tag>` for each tag, the references a Deployment can name. */
  readonly references: readonly string[];
  /** The digest the registry stored (an image index: one image per platform of the base). */
  readonly digest: string;
}

/**
 * Builds an operator's image as users do (`opkit image build`, on the cluster's locally built Node base image)
 * and pushes it to the test cluster's registry under each tag (`opkit image push`).
 */
export async function pushOperatorImage(options: {
  readonly operatorDir: string;
  /** `127.0.0.1:<port>` of the cluster's registry. */
  readonly registry: string;
  readonly repository: string;
  /** Pushed under each of these tags (one build). */
  readonly tags: readonly string[];
  /** Where the OCI layout is written. */
  readonly layoutDir: string;
}): Promise<PushedOperatorImage> {
  const references = options.tags.map((tag) => `${options.registry}/${options.repository}:${tag}`);
  const [reference] = references;
  if (!reference) throw new Error('pushOperatorImage needs at least one tag');
  await run(
    process.execPath,
    [
      opkit,
      'image',
      'build',
      '--operator',
      options.operatorDir,
      '--base',
      `${options.registry}/opkit/node:24`,
      '--plain-http',
      '--tag',
      reference,
      '--layout',
      options.layoutDir,
    ],
    { timeout: 180_000 },
  );
  const digests = new Set<string>();
  for (const target of references) {
    const pushed = await run(
      process.execPath,
      [opkit, 'image', 'push', options.layoutDir, target, '--plain-http'],
      { timeout: 180_000 },
    );
    const digest = /^pushed \S+@(sha256:[0-9a-f]{64})$/m.exec(pushed.stdout)?.[1];
    if (!digest) throw new Error(`opkit image push printed no digest: ${pushed.stdout}`);
    digests.add(digest);
  }
  const [digest] = digests;
  if (!digest || digests.size !== 1)
    throw new Error(`one image, several digests: ${[...digests].join(', ')}`);
  return { references, digest };
}

/** `1.2.3` → [1, 2, 3], for ordering release versions (no pre-releases in operator versions here). */
const versionParts = (v: string) => v.split('.').map((n) => Number.parseInt(n, 10) || 0);
const compareVersions = (a: string, b: string) => {
  const [x, y] = [versionParts(a), versionParts(b)];
  for (let i = 0; i < 3; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0);
  return 0;
};

/**
 * Where each released version's code is: the working tree for the operator's current version; for an older
 * one, the last commit before the operator's `package.json` moved past it (the parent of the commit that
 * changed its version away). A version released before versions were recorded runs the code of the first
 * one recorded. Grouped by source.
 */
async function releaseSources(
  repoRoot: string,
  operatorRel: string,
  versions: readonly string[],
  fromReleaseCommits: readonly string[],
): Promise<Map<string, string[]>> {
  const manifest = `${operatorRel}/package.json`;
  const version = (text: string) => (JSON.parse(text) as { version: string }).version;
  const current = version(readFileSync(join(repoRoot, manifest), 'utf8'));
  const { stdout } = await run('git', ['log', '--format=%H', '--', manifest], { cwd: repoRoot });
  // Newest first: each commit that touched the file and the version it left there.
  const history: { commit: string; version: string }[] = [];
  for (const commit of stdout.split('\n').filter(Boolean)) {
    const shown = await run('git', ['show', `${commit}:${manifest}`], { cwd: repoRoot });
    history.push({ commit, version: version(shown.stdout) });
  }
  const sources = new Map<string, string[]>();
  for (const v of versions) {
    let source = 'working-tree';
    if (v !== current && fromReleaseCommits.includes(v)) {
      const recorded = history
        .map((h) => h.version)
        .filter((h) => compareVersions(h, v) >= 0 && h !== current);
      const released = recorded.sort(compareVersions)[0];
      const last = history.findIndex((h) => h.version === released);
      const movedAway = last > 0 ? history[last - 1]?.commit : undefined;
      if (!movedAway) {
        throw new Error(
          `no commit of ${manifest} records version ${v} or a later one before ${current}: is this a shallow clone? (git fetch --unshallow)`,
        );
      }
      source = (await run('git', ['rev-parse', `${movedAway}^`], { cwd: repoRoot })).stdout.trim();
    }
    sources.set(source, [...(sources.get(source) ?? []), v]);
  }
  return sources;
}

/**
 * The source tree of `commit` with its dependencies installed, ready for `opkit image build`: extracted with
 * `git archive` and `npm ci` into the cache (once per commit and machine), so an old release builds from its
 * own code and lockfile.
 */
async function releaseTree(repoRoot: string, commit: string): Promise<string> {
  const dir = join(cacheRoot(), 'build', `release-${commit.slice(0, 12)}`);
  if (existsSync(join(dir, '.complete'))) return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  await run('sh', ['-c', `git archive ${commit} | tar -x -C '${dir}'`], { cwd: repoRoot });
  await run('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'], {
    cwd: dir,
    timeout: 600_000,
    maxBuffer: 64 << 20,
  });
  writeFileSync(join(dir, '.complete'), `${commit}\n`);
  return dir;
}

/**
 * Pushes the images of released versions of an operator, one build per source: the versions in
 * `fromReleaseCommits` as their release built them (see releaseSources), the others from the working tree.
 */
export async function pushReleasedOperatorImages(options: {
  readonly repoRoot: string;
  /** The operator project relative to the repository root, e.g. `operators/memcached`. */
  readonly operator: string;
  readonly registry: string;
  readonly repository: string;
  readonly versions: readonly string[];
  /** Versions built from their release commit instead of the working tree. */
  readonly fromReleaseCommits?: readonly string[];
  /** Where the OCI layouts are written (one subdirectory per source). */
  readonly layoutDir: string;
}): Promise<Map<string, PushedOperatorImage>> {
  const pushed = new Map<string, PushedOperatorImage>();
  const sources = await releaseSources(
    options.repoRoot,
    options.operator,
    options.versions,
    options.fromReleaseCommits ?? [],
  );
  for (const [source, tags] of sources) {
    const tree = source === 'working-tree' ? options.repoRoot : await releaseTree(options.repoRoot, source);
    const image = await pushOperatorImage({
      operatorDir: join(tree, options.operator),
      registry: options.registry,
      repository: options.repository,
      tags,
      layoutDir: join(options.layoutDir, source.slice(0, 12)),
    });
    for (const tag of tags) pushed.set(tag, image);
  }
  return pushed;
}
