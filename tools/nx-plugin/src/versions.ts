// The versions a generated workspace installs: the plugin's own package.json is the table. The opkit packages
// are optional peer dependencies at the exact versions this plugin was released with (`nx release version`
// rewrites them on every bump, see the package's `nx.release` settings), the tools beside them at the
// versions this plugin's generators are tested with. Optional peers: npm never installs them for the plugin.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

interface PluginManifest {
  readonly name: string;
  readonly version: string;
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly peerDependencies?: Readonly<Record<string, string>>;
}

const manifest = JSON.parse(
  readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8'),
) as PluginManifest;

/** The version (or range) of `name` this plugin writes, or an error naming the package it does not know. */
export function pluginVersionOf(name: string): string {
  if (name === manifest.name) return manifest.version;
  const version = manifest.peerDependencies?.[name] ?? manifest.dependencies?.[name];
  if (version === undefined) throw new Error(`@opkit/nx has no version of ${name} in its package.json`);
  return version;
}

/** The packages an operator's code imports at run time: the root package.json's `dependencies`. */
export const WORKSPACE_DEPENDENCIES = [
  '@opkit/controller-runtime',
  '@opkit/controller-tools',
  '@sinclair/typebox',
] as const;

/** The tools the workspace builds and tests with: the root package.json's `devDependencies`. */
export const WORKSPACE_DEV_DEPENDENCIES = [
  '@opkit/nx',
  '@opkit/cli',
  '@opkit/test-cluster',
  '@biomejs/biome',
  '@types/node',
  'nx',
  'tsx',
  'typescript',
  'vitest',
] as const;

/** The root package.json's dependency lists of a workspace made with this plugin. */
export function workspaceDependencies(): {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
} {
  const table = (names: readonly string[]) => Object.fromEntries(names.map((n) => [n, pluginVersionOf(n)]));
  return { dependencies: table(WORKSPACE_DEPENDENCIES), devDependencies: table(WORKSPACE_DEV_DEPENDENCIES) };
}

/** The Node.js versions the generated packages promise, the plugin's own `engines`. */
export const NODE_ENGINES = { node: '>=22.19' } as const;
