// A synthetic catalog shaped like the community catalogs OLM users install from: a few dozen packages whose
// bundles carry their ClusterServiceVersion and CRDs inline as `olm.bundle.object` properties (base64 of the
// object's JSON), with icons and long descriptions, some packages written as YAML and some as JSON. The 5,000-bundle
// catalog of `syntheticCatalog` has many small bundles; this one has few, large ones, so decoding, base64 and
// re-encoding long strings dominate instead of graph building.
import { prng } from '@opkit/controller-runtime/testing';
import {
  type BundleBlob,
  type Catalog,
  type ChannelEntry,
  catalogFiles,
  emptyCatalog,
  type Property,
} from '@opkit/olm';

/** Options of {@link communityCatalog}. */
export interface CommunityCatalogOptions {
  /** Number of packages. Default 32. */
  readonly packages?: number;
  /** Seed of the generator; the same seed gives the same bytes. Default 1. */
  readonly seed?: number;
  /**
   * About how many bytes of inline objects (base64) the catalog holds: a package gets a second or third bundle
   * only while the catalog is within its share of this. Default 16 MB.
   */
  readonly objectBytes?: number;
}

/** A catalog directory's files: relative path → content. */
export type CatalogDirectory = Map<string, string>;

const WORDS =
  'operator cluster install upgrade channel backup restore replica storage network metrics alert secure tls certificate rotate scale shard index cache stream queue topic broker database schema migration policy namespace tenant workload reconcile status condition endpoint service route ingress volume snapshot retention'.split(
    ' ',
  );

class Generator {
  readonly #next: () => number;
  constructor(seed: number) {
    this.#next = prng(seed);
  }
  float(): number {
    return this.#next();
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.#next() * (max - min + 1));
  }
  /** Sizes spread as real ones are: most near `min`, a long tail towards `max`. */
  skewed(min: number, max: number): number {
    return Math.round(min * (max / min) ** (this.#next() ** 2));
  }
  words(n: number): string {
    return Array.from({ length: n }, () => WORDS[this.int(0, WORDS.length - 1)]).join(' ');
  }
  /** Markdown of about `bytes` bytes: headings, paragraphs, lists and code blocks, as operator descriptions are. */
  markdown(bytes: number): string {
    const parts: string[] = [];
    let size = 0;
    while (size < bytes) {
      const kind = this.int(0, 5);
      const part =
        kind === 0
          ? `## ${this.words(3)}`
          : kind === 1
            ? Array.from({ length: this.int(2, 6) }, () => `* ${this.words(this.int(4, 12))}`).join('\n')
            : kind === 2
              ? `\`\`\`yaml\napiVersion: example.com/v1\nkind: Example\nspec:\n  ${this.words(1)}: "${this.words(2)}"\n\`\`\``
              : `${this.words(this.int(20, 80))}. See [the docs](https://example.com/${this.words(1)}) for "${this.words(2)}".`;
      parts.push(part);
      size += part.length + 2;
    }
    return parts.join('\n\n');
  }
  /** Base64 of random bytes, standing in for a PNG icon. */
  base64(bytes: number): string {
    const raw = Buffer.alloc(bytes);
    for (let i = 0; i < bytes; i++) raw[i] = this.int(0, 255);
    return raw.toString('base64');
  }
  digest(): string {
    return Array.from({ length: 64 }, () => '0123456789abcdef'[this.int(0, 15)]).join('');
  }
}

/** An OpenAPI v3 schema of about `bytes` bytes of JSON: nested objects, arrays and described leaves, as CRDs have. */
function openApiSchema(g: Generator, bytes: number, depth = 0): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  let size = 0;
  let i = 0;
  while (size < bytes) {
    const name = `${g.words(1)}${g.words(1).replace(/^./, (c) => c.toUpperCase())}${i++}`;
    const description = `${g.words(g.int(8, 40))}.`;
    let schema: Record<string, unknown>;
    if (depth < 4 && bytes - size > 2000 && g.float() < 0.3) {
      const share = Math.min(bytes - size, g.int(1000, Math.max(1000, Math.floor(bytes / 3))));
      schema = { description, type: 'object', properties: openApiSchema(g, share, depth + 1).properties };
      if (g.float() < 0.3)
        schema = { description, type: 'array', items: { ...schema, description: undefined } };
    } else {
      const leaf = g.int(0, 4);
      schema =
        leaf === 0
          ? { description, type: 'string' }
          : leaf === 1
            ? { description, format: 'int32', type: 'integer' }
            : leaf === 2
              ? { description, type: 'boolean' }
              : leaf === 3
                ? {
                    anyOf: [{ type: 'integer' }, { type: 'string' }],
                    'x-kubernetes-int-or-string': true,
                    description,
                  }
                : { description, enum: [g.words(1), g.words(1), g.words(1)], type: 'string' };
    }
    properties[name] = schema;
    size += JSON.stringify(schema).length + name.length + 4;
  }
  return { type: 'object', properties };
}

interface Api {
  readonly group: string;
  readonly kind: string;
  readonly plural: string;
  readonly crdBytes: number;
}

function crd(g: Generator, api: Api, release: number): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      annotations: { 'controller-gen.kubebuilder.io/version': `v0.${14 + (release % 4)}.0` },
      creationTimestamp: null,
      name: `${api.plural}.${api.group}`,
    },
    spec: {
      group: api.group,
      names: {
        kind: api.kind,
        listKind: `${api.kind}List`,
        plural: api.plural,
        singular: api.kind.toLowerCase(),
      },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          schema: { openAPIV3Schema: openApiSchema(g, api.crdBytes) },
          served: true,
          storage: true,
          subresources: { status: {} },
        },
      ],
    },
    status: { acceptedNames: { kind: '', plural: '' }, conditions: null, storedVersions: null },
  };
}

function csv(
  g: Generator,
  pkg: string,
  version: string,
  replaces: string | undefined,
  apis: readonly Api[],
  operatorImage: string,
): Record<string, unknown> {
  const examples = apis.map((a) => ({
    apiVersion: `${a.group}/v1`,
    kind: a.kind,
    metadata: { name: `example-${a.plural}` },
    spec: { size: 3, [g.words(1)]: g.words(3) },
  }));
  const rules = Array.from({ length: g.int(4, 20) }, () => ({
    apiGroups: [g.words(1) === 'operator' ? '' : `${g.words(1)}.example.com`],
    resources: [g.words(1), g.words(1)],
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  }));
  return {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'ClusterServiceVersion',
    metadata: {
      annotations: {
        'alm-examples': JSON.stringify(examples, null, 2),
        capabilities: 'Deep Insights',
        categories: 'Database',
        containerImage: operatorImage,
        createdAt: '2026-03-01T12:00:00Z',
        description: g.words(12),
        'operators.operatorframework.io/builder': 'operator-sdk-v1.41.0',
        'operators.operatorframework.io/project_layout': 'go.kubebuilder.io/v4',
        repository: `https://github.com/example/${pkg}`,
        support: 'Example Community',
      },
      name: `${pkg}.v${version}`,
      namespace: 'placeholder',
    },
    spec: {
      apiservicedefinitions: {},
      customresourcedefinitions: {
        owned: apis.map((a) => ({
          description: g.words(10),
          displayName: a.kind,
          kind: a.kind,
          name: `${a.plural}.${a.group}`,
          resources: [{ kind: 'Deployment', name: '', version: 'v1' }],
          specDescriptors: Array.from({ length: g.int(2, 12) }, () => ({
            description: g.words(10),
            displayName: g.words(2),
            path: g.words(1),
            'x-descriptors': ['urn:alm:descriptor:com.tectonic.ui:text'],
          })),
          version: 'v1',
        })),
      },
      description: g.markdown(g.skewed(10_000, 120_000)),
      displayName: `${pkg} operator`,
      icon: [{ base64data: g.base64(g.skewed(3_000, 45_000)), mediatype: 'image/png' }],
      install: {
        spec: {
          clusterPermissions: [{ rules, serviceAccountName: `${pkg}-controller-manager` }],
          deployments: [
            {
              label: { 'control-plane': 'controller-manager' },
              name: `${pkg}-controller-manager`,
              spec: {
                replicas: 1,
                selector: { matchLabels: { 'control-plane': 'controller-manager' } },
                strategy: {},
                template: {
                  metadata: { labels: { 'control-plane': 'controller-manager' } },
                  spec: {
                    containers: [
                      {
                        args: ['--leader-elect', '--health-probe-bind-address=:8081'],
                        command: ['/manager'],
                        image: operatorImage,
                        livenessProbe: { httpGet: { path: '/healthz', port: 8081 }, initialDelaySeconds: 15 },
                        name: 'manager',
                        resources: {
                          limits: { cpu: '500m', memory: '128Mi' },
                          requests: { cpu: '10m', memory: '64Mi' },
                        },
                        securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
                      },
                    ],
                    securityContext: { runAsNonRoot: true },
                    serviceAccountName: `${pkg}-controller-manager`,
                    terminationGracePeriodSeconds: 10,
                  },
                },
              },
            },
          ],
          permissions: [{ rules: rules.slice(0, 3), serviceAccountName: `${pkg}-controller-manager` }],
        },
        strategy: 'deployment',
      },
      installModes: [
        { supported: true, type: 'OwnNamespace' },
        { supported: true, type: 'SingleNamespace' },
        { supported: false, type: 'MultiNamespace' },
        { supported: true, type: 'AllNamespaces' },
      ],
      keywords: g.words(5).split(' '),
      links: [{ name: 'Documentation', url: `https://example.com/${pkg}/docs` }],
      maintainers: [{ email: `maintainers@${pkg}.example.com`, name: `${pkg} maintainers` }],
      maturity: 'stable',
      minKubeVersion: '1.25.0',
      provider: { name: 'Example Community' },
      ...(replaces ? { replaces } : {}),
      version,
    },
  };
}

const bundleObject = (object: unknown): Property => ({
  type: 'olm.bundle.object',
  value: { data: Buffer.from(JSON.stringify(object)).toString('base64') },
});

/**
 * Generates the community-shaped catalog as files: `<package>/catalog.yaml` for about half the packages and
 * `<package>/catalog.json` for the rest, each byte-identical to what `opm migrate` writes in that format. Sizes
 * (JSON of the inline objects): CSVs 20–200 KB, most near the low end, with icons of 3–45 KB; CRDs 50–500 KB; one
 * or two CRDs and one to three bundles per package, as far as `objectBytes` allows: about 17 MB in all.
 */
export function communityCatalog(options: CommunityCatalogOptions = {}): {
  readonly files: CatalogDirectory;
  readonly catalog: Catalog;
} {
  const g = new Generator(options.seed ?? 1);
  const files: CatalogDirectory = new Map();
  const whole = emptyCatalog();
  const packages = options.packages ?? 32;
  const budget = options.objectBytes ?? 16e6;
  let objectBytes = 0;
  for (let p = 0; p < packages; p++) {
    const pkg = `${g.words(1)}-${String(p).padStart(2, '0')}`;
    const catalog = emptyCatalog();
    const apis: Api[] = Array.from({ length: g.int(1, 2) }, (_, i) => {
      const kind = `${g.words(1).replace(/^./, (c) => c.toUpperCase())}${i}`;
      return {
        group: `${pkg}.example.com`,
        kind,
        plural: `${kind.toLowerCase()}s`,
        crdBytes: g.skewed(50_000, 500_000),
      };
    });
    catalog.packages.push({
      schema: 'olm.package',
      name: pkg,
      defaultChannel: 'stable',
      description: g.words(30),
    });
    const count = g.int(1, 3);
    const entries: ChannelEntry[] = [];
    for (let b = 0; b < count; b++) {
      if (b > 0 && objectBytes > (budget * (p + 1)) / packages) break;
      const version = `1.${b}.${g.int(0, 3)}`;
      const name = `${pkg}.v${version}`;
      const replaces = entries.at(-1)?.name;
      entries.push(replaces ? { name, replaces, skipRange: `<${version}` } : { name });
      const operatorImage = `quay.io/example/${pkg}@sha256:${g.digest()}`;
      const bundleImage = `quay.io/example/${pkg}-bundle@sha256:${g.digest()}`;
      const bundle: BundleBlob = {
        schema: 'olm.bundle',
        name,
        package: pkg,
        image: bundleImage,
        properties: [
          ...apis.map((a) => ({ type: 'olm.gvk', value: { group: a.group, kind: a.kind, version: 'v1' } })),
          { type: 'olm.package', value: { packageName: pkg, version } },
          ...apis.map((a) => bundleObject(crd(g, a, b))),
          bundleObject(csv(g, pkg, version, replaces, apis, operatorImage)),
        ],
        relatedImages: [
          { name: '', image: bundleImage },
          { name: 'manager', image: operatorImage },
        ],
      };
      catalog.bundles.push(bundle);
      for (const property of bundle.properties) {
        if (property.type === 'olm.bundle.object')
          objectBytes += (property.value as { data: string }).data.length;
      }
    }
    catalog.channels.push({ schema: 'olm.channel', name: 'stable', package: pkg, entries });
    const format = p % 2 === 0 ? 'yaml' : 'json';
    for (const [path, content] of catalogFiles(catalog, { format })) files.set(path, content);
    whole.packages.push(...catalog.packages);
    whole.channels.push(...catalog.channels);
    whole.bundles.push(...catalog.bundles);
  }
  return { files, catalog: whole };
}
