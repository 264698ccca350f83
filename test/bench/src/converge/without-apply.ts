import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Plugin } from 'esbuild';

// A trial, not a product option: our operator with the runtime's applyIfChanged writing as the Go controllers
// do (a create, then JSON merge patches) instead of server-side apply, so one run shows what the API server
// spends on apply. Everything else in the bundle is the operator as it ships.

/** The module that replaces `controllerutil/apply-if-changed.ts`: the original's exports, one of them swapped. */
function replacement(original: string): string {
  return `export * from ${JSON.stringify(`original:${original}`)};
import { isSubset } from './semantic.js';

export async function applyIfChanged(client, desired, live) {
  if (live && isSubset(desired, live)) return 'unchanged';
  if (!live) {
    await client.create(desired);
    return 'created';
  }
  const { apiVersion, kind, metadata } = desired;
  await client.patch({ apiVersion, kind, name: metadata.name, namespace: metadata.namespace }, desired, 'merge');
  return 'updated';
}
`;
}

/** An esbuild plugin that bundles the runtime's applyIfChanged as a create-then-merge-patch write. */
export function withoutServerSideApply(): Plugin {
  return {
    name: 'apply-if-changed-without-server-side-apply',
    setup(build) {
      build.onLoad({ filter: /controllerutil[\\/]apply-if-changed\.ts$/, namespace: 'file' }, (args) => ({
        contents: replacement(args.path),
        loader: 'js',
        resolveDir: dirname(args.path),
      }));
      build.onResolve({ filter: /^original:/ }, (args) => ({
        path: args.path.slice('original:'.length),
        namespace: 'original',
      }));
      build.onLoad({ filter: /.*/, namespace: 'original' }, async (args) => ({
        contents: await readFile(args.path, 'utf8'),
        loader: 'ts',
        resolveDir: dirname(args.path),
      }));
    },
  };
}
