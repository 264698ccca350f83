import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureWorkspaceBuilt, WorkspaceBuildError } from './workspace-build.js';

describe('ensureWorkspaceBuilt inside an Nx task', () => {
  // A workspace without Nx installed: building in it would fail, so a pass proves nothing was built.
  const root = mkdtempSync(join(tmpdir(), 'opkit-workspace-build-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const project = (name: string, built: boolean) => {
    const directory = join(root, 'libs', name);
    mkdirSync(built ? join(directory, 'dist') : directory, { recursive: true });
    return { project: name, directory };
  };
  const underNx = { env: { NX_TASK_TARGET_PROJECT: 'author-e2e' } };

  it('leaves the builds its dependsOn made as they are, without running a build beside other tests', async () => {
    await expect(ensureWorkspaceBuilt(root, [project('olm', true)], underNx)).resolves.toBeUndefined();
  });

  it('refuses in one line naming the task and each project without a build', async () => {
    const projects = [project('oci', true), project('olm-missing', false), project('cli-missing', false)];
    const attempt = ensureWorkspaceBuilt(root, projects, underNx);
    await expect(attempt).rejects.toThrow(WorkspaceBuildError);
    await expect(attempt).rejects.toThrow(
      'author-e2e: no build of olm-missing (libs/olm-missing/dist), cli-missing (libs/cli-missing/dist); ' +
        "add their build to the test target's dependsOn, or build them first (nx run-many -t build)",
    );
  });
});

describe('ensureWorkspaceBuilt outside Nx', () => {
  it('builds, and says which projects it could not build', async () => {
    const root = mkdtempSync(join(tmpdir(), 'opkit-workspace-build-'));
    try {
      const lines: string[] = [];
      const attempt = ensureWorkspaceBuilt(root, [{ project: 'olm', directory: join(root, 'olm') }], {
        env: {},
        onProgress: (line) => lines.push(line),
      });
      await expect(attempt).rejects.toThrow(/^building olm failed/);
      expect(lines).toEqual(['building olm (nx run-many -t build)']);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
