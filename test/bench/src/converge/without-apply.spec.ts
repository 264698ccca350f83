import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { workspaceRoot } from '@opkit/test-cluster';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { withoutServerSideApply } from './without-apply.js';

const runtimeSource = join(
  workspaceRoot,
  'libs',
  'controller-runtime',
  'src',
  'controllerutil',
  'apply-if-changed.ts',
);
const scratch = mkdtempSync(join(tmpdir(), 'without-apply-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The runtime's apply-if-changed module as the trial bundles it. */
async function bundled() {
  const outfile = join(scratch, 'bundle.mjs');
  const result = await build({
    stdin: { contents: `export * from ${JSON.stringify(runtimeSource)};`, resolveDir: scratch, loader: 'ts' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    write: false,
    logLevel: 'error',
    plugins: [withoutServerSideApply()],
  });
  writeFileSync(outfile, result.outputFiles[0]?.text ?? '');
  return (await import(
    pathToFileURL(outfile).href
  )) as typeof import('@opkit/controller-runtime/controllerutil');
}

/** A client that records each call by its method. */
function recordingClient() {
  const calls: string[] = [];
  const record =
    (verb: string) =>
    async (...args: unknown[]) => {
      calls.push(`${verb} ${JSON.stringify(args)}`);
      return {};
    };
  return { calls, client: { apply: record('apply'), create: record('create'), patch: record('patch') } };
}

describe('the trial without server-side apply', () => {
  const desired = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 's', namespace: 'n' },
    spec: { replicas: 3 },
  };

  it('creates a missing object, merge-patches a changed one, writes nothing for an unchanged one, never applies', async () => {
    const { applyIfChanged } = await bundled();
    const { calls, client } = recordingClient();
    expect(await applyIfChanged(client, desired, undefined)).toBe('created');
    const resized = { ...desired, spec: { replicas: 2 } };
    const asDesired = { ...desired, spec: { replicas: 3, paused: false } };
    expect(await applyIfChanged(client, desired, resized)).toBe('updated');
    expect(await applyIfChanged(client, desired, asDesired)).toBe('unchanged');
    expect(calls).toEqual([
      `create ${JSON.stringify([desired])}`,
      `patch ${JSON.stringify([{ apiVersion: 'apps/v1', kind: 'Deployment', name: 's', namespace: 'n' }, desired, 'merge'])}`,
    ]);
  });

  it('keeps the module’s other exports as they are', async () => {
    const module = await bundled();
    expect(typeof module.patchStatusIfChanged).toBe('function');
    expect(typeof module.patchStatusWithConditionEvents).toBe('function');
  });
});
