import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { workspaceRoot } from '@nx/devkit';
import { createTreeWithEmptyWorkspace } from '@nx/devkit/testing';
import { describe, expect, it } from 'vitest';
import { kindNames } from '../names.js';
import { type ApiResource, sampleFile, writeProjectIndex } from './project-index.js';

// The operators authors copy have the layout the generators write: regenerating their listing files from the
// kinds their package.json records changes nothing, and every file the generators would have written for
// those kinds is there.

const biome = join(workspaceRoot, 'node_modules', '.bin', 'biome');

/** What `biome check --write` makes of a generated file, as the generators format what they write. */
function formatted(path: string, text: string): string {
  if (!path.endsWith('.ts')) return text;
  return execFileSync(biome, ['check', '--write', `--stdin-file-path=${path}`], {
    cwd: workspaceRoot,
    input: text,
    encoding: 'utf8',
  });
}

function kindFiles(r: ApiResource): string[] {
  const { fileName } = kindNames(r.kind, r.plural);
  const lower = r.kind.toLowerCase();
  return [
    `src/api/${fileName}-crd.ts`,
    ...[r.version, ...(r.otherVersions ?? [])].map((v) => `src/api/${v}/${fileName}.ts`),
    ...(r.webhooks ? [`src/api/${r.version}/${fileName}-webhooks.ts`] : []),
    `src/controller/${fileName}-controller.ts`,
    `config/rbac/${lower}_editor_role.yaml`,
    `config/rbac/${lower}_viewer_role.yaml`,
    ...[r.version, ...(r.otherVersions ?? [])].map((v) => `config/samples/${sampleFile(r, v)}.yaml`),
  ];
}

describe.each(['memcached', 'redis'])('the %s operator', (project) => {
  const root = `operators/${project}`;
  const pkg = JSON.parse(readFileSync(join(workspaceRoot, root, 'package.json'), 'utf8')) as {
    opkit: { resources?: ApiResource[] };
  };
  const resources = pkg.opkit.resources ?? [];

  it('records its kinds in package.json', () => {
    expect(resources.length).toBeGreaterThan(0);
  });

  it('has the listing files the generators write from that record', () => {
    const tree = createTreeWithEmptyWorkspace();
    writeProjectIndex(tree, root, project, resources);
    const written = tree.listChanges().filter((c) => c.path.startsWith(`${root}/`));
    expect(written.map((c) => c.path)).toContain(`${root}/src/api/index.ts`);
    for (const change of written) {
      const onDisk = readFileSync(join(workspaceRoot, change.path), 'utf8');
      expect(onDisk, change.path).toBe(formatted(change.path, change.content?.toString('utf8') ?? ''));
    }
    // The first call starts the formatter: seconds on a busy machine.
  }, 60_000);

  it('has each kind’s schema, CRD, controller, roles and samples where the generators put them', () => {
    const missing = resources.flatMap(kindFiles).filter((f) => !existsSync(join(workspaceRoot, root, f)));
    expect(missing).toEqual([]);
  });
});
