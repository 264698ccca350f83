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
  /** The kind's admission webhooks, once the webhook generator has added them. */
  readonly webhooks?: { readonly defaulting: boolean; readonly validation: boolean };
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
  const kinds = resources.map((r) => ({ r, n: kindNames(r.kind, r.plural) }));
  const withWebhooks = kinds.filter(({ r }) => r.webhooks);
  const modules = bySource(
    kinds.flatMap(({ r, n }) => [
      { source: `./${r.version}/${n.fileName}.js`, names: [`validate${r.kind}`] },
      { source: `./${n.fileName}-crd.js`, names: [`${n.propertyName}Crd`] },
      ...(r.webhooks
        ? [{ source: `./${r.version}/${n.fileName}-webhooks.js`, names: [`${n.propertyName}Webhooks`] }]
        : []),
    ]),
  );
  const unused = withWebhooks.length === 0 ? '_' : '';
  return [
    "// The project's APIs, one entry per kind; `nx g @opkit/nx:api` and `nx g @opkit/nx:webhook` rewrite this file.",
    `import { type AnyKindWebhooks, type ConfigApi, type Manager${withWebhooks.length ? ', registerWebhooks' : ''} } from '@opkit/controller-runtime';`,
    ...modules.map((m) => `import { ${m.names.join(', ')} } from '${m.source}';`),
    '',
    ...modules.map((m) =>
      m.source.endsWith('-crd.js')
        ? `export { ${m.names.join(', ')} } from '${m.source}';`
        : `export * from '${m.source}';`,
    ),
    '',
    "/** Every kind's CRD, and the validator its samples are checked with. */",
    'export const apis: readonly ConfigApi[] = [',
    ...kinds.map(({ r, n }) => `  { crd: ${n.propertyName}Crd, validateSample: validate${r.kind} },`),
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
  names: { readonly project: string; readonly packageName: string },
  resources: readonly ApiResource[],
): void {
  const { project, packageName } = names;
  const webhooks = resources.some((r) => r.webhooks);
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
  tree.write(`${root}/config/default/kustomization.yaml`, defaultKustomization(packageName, webhooks));
  tree.write(`${root}/config/manifests/kustomization.yaml`, manifestsKustomization(packageName, webhooks));
  if (webhooks) {
    for (const [file, text] of Object.entries(webhookConfig(packageName)))
      tree.write(`${root}/${file}`, text);
  }
}

function defaultKustomization(packageName: string, webhooks: boolean): string {
  return `# Everything the operator needs, in namespace ${packageName}-system: \`kubectl kustomize config/default\`.
${webhooks ? "# The webhooks' serving certificate is not part of it: `opkit deploy` issues it.\n" : ''}namespace: ${packageName}-system
namePrefix: ${packageName}-
resources:
  - ../crd
  - ../rbac
  - ../manager
${webhooks ? '  - ../webhook\n' : ''}  - metrics_service.yaml
${webhooks ? 'patches:\n  - path: manager_webhook_patch.yaml\n' : ''}`;
}

function manifestsKustomization(packageName: string, webhooks: boolean): string {
  const base = `# Input of the OLM bundle: the base CSV, the operator, its samples and the scorecard configuration.
resources:
  - bases/${packageName}.clusterserviceversion.yaml
  - ../default
  - ../samples
  - ../scorecard
`;
  if (!webhooks) return base;
  return `${base}# OLM issues the webhook certificate and mounts it where the manager reads it: the bundle's Deployment does
# not mount the Secret \`opkit deploy\` fills.
patches:
  - target:
      group: apps
      version: v1
      kind: Deployment
      name: ${packageName}-controller-manager
    patch: |-
      - op: remove
        path: /spec/template/spec/containers/0/volumeMounts
      - op: remove
        path: /spec/template/spec/volumes
`;
}

/** The webhook Service, the manager's webhook port and certificate, and kustomize's name references. */
function webhookConfig(packageName: string): Record<string, string> {
  return {
    'config/webhook/kustomization.yaml': `# The admission webhooks: their configurations (manifests.yaml, generated) and the Service in front of the
# manager's webhook server.
resources:
  - manifests.yaml
  - service.yaml
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
