// The files of an operator project that list its kinds: written whole from the project's record of its APIs
// (package.json `opkit.resources`), so adding a kind never edits code by hand-placed markers.
import type { Tree } from '@nx/devkit';
import { type Document, isMap, isScalar, isSeq, parseDocument, Scalar } from 'yaml';
import { kindNames } from '../names.js';

/** One API of the project, as `package.json` records it under `opkit.resources`. */
export interface ApiResource {
  readonly group: string;
  /** The version the controller works on and the CRD stores: `src/api/<version>/<kind>.ts`. */
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  /**
   * Older versions still served, each in `src/api/<version>/<kind>.ts` and exported as the namespace
   * `<version>`; their samples are checked against their own schema.
   */
  readonly otherVersions?: readonly string[];
  /** The kind's webhooks, once the webhook generator (or, for conversion, the version generator) has added them. */
  readonly webhooks?: {
    readonly defaulting: boolean;
    readonly validation: boolean;
    readonly conversion?: boolean;
  };
}

/** The sample's file name, as kubebuilder names it: `<first label of the group>_<version>_<kind>`. */
export function sampleFile(r: ApiResource, version = r.version): string {
  return `${r.group.split('.')[0]}_${version}_${r.kind.toLowerCase()}`;
}

/** Biome's order of import and export sources within one group: by path, compared as plain strings. */
function bySource<T extends { readonly source: string }>(items: T[]): T[] {
  return items.sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : 0));
}

/** The kinds served at each older version (not their storage version), by version. */
function olderVersionKinds(resources: readonly ApiResource[]): Map<string, ApiResource[]> {
  const byVersion = new Map<string, ApiResource[]>();
  for (const r of resources) {
    for (const v of r.otherVersions ?? []) byVersion.set(v, [...(byVersion.get(v) ?? []), r]);
  }
  return byVersion;
}

/**
 * The module src/api/index.ts exports as the namespace of an older version: the kind's own module, or, when
 * several kinds are served at that version, the version's index of them.
 */
function olderVersionModule(version: string, kinds: readonly ApiResource[]): string {
  const [only] = kinds;
  return kinds.length === 1 && only
    ? `./${version}/${kindNames(only.kind, only.plural).fileName}.js`
    : `./${version}/index.js`;
}

interface IndexModule {
  readonly source: string;
  /** Named imports, or the namespace a whole module is imported and exported as. */
  readonly names?: readonly string[];
  readonly namespace?: string;
}

function apiIndex(resources: readonly ApiResource[]): string {
  const kinds = resources.map((r) => ({ r, n: kindNames(r.kind, r.plural) }));
  const withWebhooks = kinds.filter(({ r }) => r.webhooks);
  const namespaces = olderVersionKinds(resources);
  const modules = bySource<IndexModule>([
    ...kinds.flatMap(({ r, n }) => [
      { source: `./${r.version}/${n.fileName}.js`, names: [`validate${r.kind}`] },
      { source: `./${n.fileName}-crd.js`, names: [`${n.propertyName}Crd`] },
      ...(r.webhooks
        ? [{ source: `./${r.version}/${n.fileName}-webhooks.js`, names: [`${n.propertyName}Webhooks`] }]
        : []),
    ]),
    ...[...namespaces].map(([v, kinds]) => ({ source: olderVersionModule(v, kinds), namespace: v })),
  ]);
  const unused = withWebhooks.length === 0 ? '_' : '';
  const otherVersions = (r: ApiResource) =>
    r.otherVersions?.length
      ? `, otherVersions: { ${r.otherVersions.map((v) => `${v}: ${v}.validate${r.kind}`).join(', ')} }`
      : '';
  return [
    "// The project's APIs, one entry per kind; `nx g @opkit/nx:api` and `nx g @opkit/nx:webhook` rewrite this file.",
    "import type { Manager } from '@opkit/controller-runtime';",
    withWebhooks.length
      ? "import { type AnyKindWebhooks, registerWebhooks } from '@opkit/controller-runtime/webhook';"
      : "import type { AnyKindWebhooks } from '@opkit/controller-runtime/webhook';",
    "import type { ConfigApi } from '@opkit/controller-tools/manifests';",
    ...modules.map((m) =>
      m.namespace
        ? `import * as ${m.namespace} from '${m.source}';`
        : `import { ${m.names?.join(', ')} } from '${m.source}';`,
    ),
    '',
    ...modules.map((m) =>
      m.namespace
        ? `export * as ${m.namespace} from '${m.source}';`
        : m.source.endsWith('-crd.js')
          ? `export { ${m.names?.join(', ')} } from '${m.source}';`
          : `export * from '${m.source}';`,
    ),
    '',
    "/** Every kind's CRD, and the validators its samples are checked with. */",
    'export const apis: readonly ConfigApi[] = [',
    ...kinds.map(
      ({ r, n }) => `  { crd: ${n.propertyName}Crd, validateSample: validate${r.kind}${otherVersions(r)} },`,
    ),
    '];',
    '',
    "/** Every kind's webhooks: the manifests generate config/webhook from them. */",
    `export const webhooks: readonly AnyKindWebhooks[] = [${withWebhooks.map(({ n }) => `${n.propertyName}Webhooks`).join(', ')}];`,
    '',
    "/** Registers every kind's webhooks on the manager's webhook server. */",
    `export function setupWebhooks(${unused}manager: Manager): void {`,
    ...withWebhooks.map(({ n }) => `  registerWebhooks(manager, ${n.propertyName}Webhooks);`),
    '}',
    '',
  ].join('\n');
}

function controllerIndex(resources: readonly ApiResource[]): string {
  const header = `// The project's controllers and the RBAC rules they need; \`nx g @opkit/nx:api\` rewrites this file when it\n// adds a kind.\n`;
  if (resources.length === 0) {
    return `${header}import type { Manager, OperatorOptions } from '@opkit/controller-runtime';
import type { ResourcePolicyRule } from '@opkit/controller-runtime/rbac';

/** Sets up every controller of the project on the manager (none yet: add an API). */
export function setupControllers(_manager: Manager, _options: OperatorOptions = {}): void {}

/** What the controllers do with the API: config/rbac/role.yaml. */
export const controllerRbac: readonly ResourcePolicyRule[] = [];
`;
  }
  const kinds = bySource(
    resources.map((r) => {
      const n = kindNames(r.kind, r.plural);
      return { r, n, source: `./${n.fileName}-controller.js` };
    }),
  );
  return [
    `${header}import type { Manager, OperatorOptions } from '@opkit/controller-runtime';
import type { ResourcePolicyRule } from '@opkit/controller-runtime/rbac';`,
    ...kinds.map(
      ({ r, n, source }) =>
        `import { ${n.propertyName}ControllerRbac, setup${r.kind}Controller } from '${source}';`,
    ),
    '',
    ...kinds.map(({ source }) => `export * from '${source}';`),
    '',
    '/** Sets up every controller of the project on the manager. */',
    'export function setupControllers(manager: Manager, options: OperatorOptions = {}): void {',
    ...kinds.map(({ r }) => `  setup${r.kind}Controller(manager, options);`),
    '}',
    '',
    '/** What the controllers do with the API: config/rbac/role.yaml. */',
    'export const controllerRbac: readonly ResourcePolicyRule[] = [',
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
  for (const [version, kinds] of olderVersionKinds(resources)) {
    if (kinds.length < 2) continue;
    const modules = bySource(kinds.map((r) => ({ source: `./${kindNames(r.kind, r.plural).fileName}.js` })));
    tree.write(
      `${root}/src/api/${version}/index.ts`,
      `// The kinds served at ${version} beside their storage versions: src/api/index.ts exports them as the namespace
// ${version}. The version generator rewrites this file.
${modules.map((m) => `export * from '${m.source}';`).join('\n')}
`,
    );
  }
  tree.write(`${root}/src/controller/index.ts`, controllerIndex(resources));
  const conversions = resources.filter((r) => r.webhooks?.conversion);
  const crds = kustomization(
    `One CRD per kind, written by \`nx run ${project}:manifests\` from the schemas; the api generator keeps this list.`,
    resources.map((r) => `bases/${r.group}_${r.plural}.yaml`),
  );
  tree.write(
    `${root}/config/crd/kustomization.yaml`,
    conversions.length === 0
      ? crds
      : `${crds}# The conversion webhook's stanza, written by \`nx run ${project}:manifests\` for kinds that convert.
patches:
${conversions.map((r) => `  - path: patches/webhook_in_${r.plural}.yaml\n`).join('')}configurations:
  - kustomizeconfig.yaml
`,
  );
  if (conversions.length > 0 && !tree.exists(`${root}/config/crd/kustomizeconfig.yaml`)) {
    tree.write(`${root}/config/crd/kustomizeconfig.yaml`, CRD_KUSTOMIZECONFIG);
  }
  tree.write(
    `${root}/config/samples/kustomization.yaml`,
    kustomization(
      'A sample of each kind (the CSV carries them as alm-examples); the api generator keeps this list.',
      resources.flatMap((r) =>
        [...(r.otherVersions ?? []), r.version].map((v) => `${sampleFile(r, v)}.yaml`),
      ),
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

const CRD_KUSTOMIZECONFIG = `# Lets kustomize's namePrefix and namespace reach the Service the conversion webhook names.
nameReference:
  - kind: Service
    version: v1
    fieldSpecs:
      - kind: CustomResourceDefinition
        version: v1
        group: apiextensions.k8s.io
        path: spec/conversion/webhook/clientConfig/service/name
namespace:
  - kind: CustomResourceDefinition
    version: v1
    group: apiextensions.k8s.io
    path: spec/conversion/webhook/clientConfig/service/namespace
    create: false
`;

/**
 * The operator's deployment (config/default) and bundle input (config/manifests), as the operator generator
 * writes them; they are the author's from then on (the webhook generator edits them, keeping the rest).
 */
export function writeDeploymentConfig(tree: Tree, root: string, packageName: string): void {
  tree.write(
    `${root}/config/default/kustomization.yaml`,
    `# Everything the operator needs, in namespace ${packageName}-system: \`kubectl kustomize config/default\`.
namespace: ${packageName}-system
namePrefix: ${packageName}-
resources:
  - ../crd
  - ../rbac
  - ../manager
  - metrics_service.yaml
`,
  );
  tree.write(
    `${root}/config/manifests/kustomization.yaml`,
    `# Input of the OLM bundle: the base CSV, the operator, its samples and the scorecard configuration.
resources:
  - bases/${packageName}.clusterserviceversion.yaml
  - ../default
  - ../samples
  - ../scorecard
`,
  );
}

/**
 * Serves webhooks from the deployed manager: config/webhook and the manager's certificate mount (unless the
 * project has them), \`../webhook\` and the mount in config/default, and in config/manifests the patch that leaves
 * the certificate to OLM. config/webhook lists the generated admission webhook configurations (manifests.yaml)
 * once a kind has a defaulting or validating webhook: a conversion webhook alone is named in its CRD's patch
 * (config/crd) and needs only the Service. Edits the kustomizations as YAML documents, so the author's entries
 * and comments stay.
 */
export function enableWebhookConfig(
  tree: Tree,
  root: string,
  packageName: string,
  resources: readonly ApiResource[],
): void {
  const admission = resources.some((r) => r.webhooks?.defaulting || r.webhooks?.validation);
  for (const [file, text] of Object.entries(webhookConfig(packageName, admission))) {
    if (!tree.exists(`${root}/${file}`)) tree.write(`${root}/${file}`, text);
  }
  editYaml(tree, `${root}/config/webhook/kustomization.yaml`, (doc) => {
    const listed = doc.get('resources');
    const entries = isSeq(listed) ? listed : doc.createNode([]);
    if (!isSeq(listed)) doc.set('resources', entries);
    const has = (file: string) => entries.items.some((i) => isScalar(i) && i.value === file);
    if (admission && !has('manifests.yaml')) entries.items.unshift(doc.createNode('manifests.yaml'));
    if (!has('service.yaml')) entries.items.push(doc.createNode('service.yaml'));
  });
  editYaml(tree, `${root}/config/default/kustomization.yaml`, (doc) => {
    const resources = doc.get('resources');
    if (isSeq(resources) && !resources.items.some((i) => isScalar(i) && i.value === '../webhook')) {
      const manager = resources.items.findIndex((i) => isScalar(i) && i.value === '../manager');
      const webhook = doc.createNode('../webhook');
      webhook.commentBefore =
        " The webhooks' serving certificate is not part of it: `opkit deploy` issues it.";
      resources.items.splice(manager + 1, 0, webhook);
    }
    addPatch(doc, { path: 'manager_webhook_patch.yaml' });
  });
  editYaml(tree, `${root}/config/manifests/kustomization.yaml`, (doc) => {
    const patch = doc.createNode({
      target: {
        group: 'apps',
        version: 'v1',
        kind: 'Deployment',
        name: `${packageName}-controller-manager`,
      },
      patch: new Scalar(
        '- op: remove\n  path: /spec/template/spec/containers/0/volumeMounts\n- op: remove\n  path: /spec/template/spec/volumes',
      ),
    });
    const text = patch.get('patch', true);
    if (isScalar(text)) text.type = Scalar.BLOCK_LITERAL;
    patch.commentBefore =
      " OLM issues the webhook certificate and mounts it where the manager reads it: the bundle's Deployment\n does not mount the Secret `opkit deploy` fills.";
    addPatch(doc, patch);
  });
}

function editYaml(tree: Tree, path: string, edit: (doc: Document) => void): void {
  const text = tree.read(path, 'utf-8');
  if (text === null) throw new Error(`${path}: missing`);
  const doc = parseDocument(text);
  edit(doc);
  tree.write(path, doc.toString({ lineWidth: 0 }));
}

/** Appends a kustomize patch unless one with the same path or target is there already. */
function addPatch(doc: Document, patch: unknown): void {
  const key = (p: unknown) => JSON.stringify(isMap(p) ? (p.get('path') ?? p.toJSON().target) : p);
  const node = isMap(patch) ? patch : doc.createNode(patch);
  const patches = doc.get('patches');
  if (isSeq(patches)) {
    if (!patches.items.some((p) => key(p) === key(node))) patches.items.push(node);
  } else {
    doc.set('patches', doc.createNode([node]));
  }
}

/** The webhook Service, the manager's webhook port and certificate, and kustomize's name references. */
function webhookConfig(packageName: string, admission: boolean): Record<string, string> {
  return {
    'config/webhook/kustomization.yaml': `# The webhooks: the Service in front of the manager's webhook server, and the admission webhooks'
# configurations (manifests.yaml, generated) once a kind has one. A conversion webhook is named in its CRD.
resources:
${admission ? '  - manifests.yaml\n' : ''}  - service.yaml
configurations:
  - kustomizeconfig.yaml
`,
    'config/webhook/kustomizeconfig.yaml': `# Lets kustomize's namePrefix and namespace reach the Service the webhook configurations name.
nameReference:
  - kind: Service
    version: v1
    fieldSpecs:
      - kind: MutatingWebhookConfiguration
        group: admissionregistration.k8s.io
        path: webhooks/clientConfig/service/name
      - kind: ValidatingWebhookConfiguration
        group: admissionregistration.k8s.io
        path: webhooks/clientConfig/service/name
namespace:
  - kind: MutatingWebhookConfiguration
    group: admissionregistration.k8s.io
    path: webhooks/clientConfig/service/namespace
    create: true
  - kind: ValidatingWebhookConfiguration
    group: admissionregistration.k8s.io
    path: webhooks/clientConfig/service/namespace
    create: true
`,
    'config/webhook/service.yaml': `# The API server calls the webhooks here (HTTPS on 443, the manager's webhook server on 9443).
apiVersion: v1
kind: Service
metadata:
  name: webhook-service
  namespace: system
  labels:
    app.kubernetes.io/name: ${packageName}
spec:
  ports:
    - port: 443
      protocol: TCP
      targetPort: 9443
  selector:
    control-plane: controller-manager
    app.kubernetes.io/name: ${packageName}
`,
    'config/default/manager_webhook_patch.yaml': `# The manager serves its webhooks on 9443 with the certificate mounted from the Secret webhook-server-cert
# (issued by \`opkit deploy\`).
apiVersion: apps/v1
kind: Deployment
metadata:
  name: controller-manager
  namespace: system
spec:
  template:
    spec:
      containers:
        - name: manager
          ports:
            - name: webhook-server
              containerPort: 9443
              protocol: TCP
          volumeMounts:
            - name: webhook-certs
              mountPath: /tmp/k8s-webhook-server/serving-certs
              readOnly: true
      volumes:
        - name: webhook-certs
          secret:
            secretName: webhook-server-cert
`,
  };
}
