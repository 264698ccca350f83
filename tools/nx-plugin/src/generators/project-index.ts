// The files of an operator project that list its kinds: written whole from the project's record of its APIs
// (package.json `opkit.resources`), so adding a kind never edits code by hand-placed markers.
import type { Tree } from '@nx/devkit';
import { kindNames } from '../names.js';

/** One API of the project, as `package.json` records it under `opkit.resources`. */
export interface ApiResource {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
}

/** The sample's file name, as kubebuilder names it: `<first label of the group>_<version>_<kind>`. */
export function sampleFile(r: ApiResource): string {
  return `${r.group.split('.')[0]}_${r.version}_${r.kind.toLowerCase()}`;
}

/** Biome's order of import and export sources within one group: by path, compared as plain strings. */
function bySource<T extends { readonly source: string }>(items: T[]): T[] {
  return items.sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : 0));
}

function apiIndex(resources: readonly ApiResource[]): string {
  const header = `// The project's APIs, one entry per kind; \`nx g @opkit/nx:api\` rewrites this file when it adds one.\nimport type { ConfigApi } from '@opkit/controller-runtime';\n`;
  if (resources.length === 0) {
    return `${header}\n/** Every kind's CRD, and the validator its samples are checked with. */\nexport const apis: readonly ConfigApi[] = [];\n`;
  }
  const kinds = resources.map((r) => ({ r, n: kindNames(r.kind, r.plural) }));
  const imports = bySource(
    kinds.flatMap(({ r, n }) => [
      { source: `./${r.version}/${n.fileName}.js`, names: `validate${r.kind}` },
      { source: `./${n.fileName}-crd.js`, names: `${n.propertyName}Crd` },
    ]),
  );
  const exports = bySource(
    kinds.flatMap(({ r, n }) => [
      { source: `./${r.version}/${n.fileName}.js`, line: `export * from './${r.version}/${n.fileName}.js';` },
      {
        source: `./${n.fileName}-crd.js`,
        line: `export { ${n.propertyName}Crd } from './${n.fileName}-crd.js';`,
      },
    ]),
  );
  const entries = kinds.map(
    ({ r, n }) => `  { crd: ${n.propertyName}Crd, validateSample: validate${r.kind} },`,
  );
  return [
    header.trimEnd(),
    ...imports.map((i) => `import { ${i.names} } from '${i.source}';`),
    '',
    ...exports.map((e) => e.line),
    '',
    "/** Every kind's CRD, and the validator its samples are checked with. */",
    'export const apis: readonly ConfigApi[] = [',
    ...entries,
    '];',
    '',
  ].join('\n');
}

function controllerIndex(resources: readonly ApiResource[]): string {
  const header = `// The project's controllers and the RBAC rules they need; \`nx g @opkit/nx:api\` rewrites this file when it\n// adds a kind.\n`;
  if (resources.length === 0) {
    return `${header}import type { Manager, OperatorOptions, PolicyRule } from '@opkit/controller-runtime';

/** Sets up every controller of the project on the manager (none yet: add an API). */
export function setupControllers(_manager: Manager, _options: OperatorOptions = {}): void {}

/** What the controllers do with the API: config/rbac/role.yaml. */
export const controllerRbac: readonly PolicyRule[] = [];
`;
  }
  const kinds = bySource(
    resources.map((r) => {
      const n = kindNames(r.kind, r.plural);
      return { r, n, source: `./${n.fileName}-controller.js` };
    }),
  );
  return [
    `${header}import type { Manager, OperatorOptions, PolicyRule } from '@opkit/controller-runtime';`,
    ...kinds.map(
      ({ r, n, source }) =>
        `import { ${n.propertyName}ControllerRbac, setup${r.kind}Controller } from '${source}';`,
    ),
    '',
    ...kinds.map(({ source }) => `export * from '${source}';`),
    '',
    '/** Sets up every controller of the project on the manager. */',
    'export function setupControllers(manager: Manager, options: OperatorOptions = {}): void {',
    ...kinds.map(
      ({ r }) =>
        `  setup${r.kind}Controller(manager, { maxConcurrentReconciles: options.maxConcurrentReconciles });`,
    ),
    '}',
    '',
    '/** What the controllers do with the API: config/rbac/role.yaml. */',
    'export const controllerRbac: readonly PolicyRule[] = [',
    ...kinds.map(({ n }) => `  ...${n.propertyName}ControllerRbac,`),
    '];',
    '',
  ].join('\n');
}

function kustomization(comment: string, resources: readonly string[]): string {
  const list =
    resources.length === 0 ? 'resources: []\n' : `resources:\n${resources.map((r) => `  - ${r}\n`).join('')}`;
  return `# ${comment}\n${list}`;
}

/** Writes every file that lists the project's kinds. */
export function writeProjectIndex(
  tree: Tree,
  root: string,
  project: string,
  resources: readonly ApiResource[],
): void {
  tree.write(`${root}/src/api/index.ts`, apiIndex(resources));
  tree.write(`${root}/src/controller/index.ts`, controllerIndex(resources));
  tree.write(
    `${root}/config/crd/kustomization.yaml`,
    kustomization(
      `One CRD per kind, written by \`nx run ${project}:manifests\` from the schemas; the api generator keeps this list.`,
      resources.map((r) => `bases/${r.group}_${r.plural}.yaml`),
    ),
  );
  tree.write(
    `${root}/config/samples/kustomization.yaml`,
    kustomization(
      'A sample of each kind (the CSV carries them as alm-examples); the api generator keeps this list.',
      resources.map((r) => `${sampleFile(r)}.yaml`),
    ),
  );
  tree.write(
    `${root}/config/rbac/kustomization.yaml`,
    kustomization(
      `The manager's account and roles (role.yaml and leader_election_role.yaml are written by \`nx run ${project}:manifests\`), and an editor and a viewer role per kind.`,
      [
        'service_account.yaml',
        'role.yaml',
        'role_binding.yaml',
        'leader_election_role.yaml',
        'leader_election_role_binding.yaml',
        'metrics_auth_role.yaml',
        'metrics_auth_role_binding.yaml',
        'metrics_reader_role.yaml',
        ...resources.flatMap((r) => [
          `${r.kind.toLowerCase()}_editor_role.yaml`,
          `${r.kind.toLowerCase()}_viewer_role.yaml`,
        ]),
      ],
    ),
  );
}
