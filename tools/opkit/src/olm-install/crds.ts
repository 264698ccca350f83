/**
 * OLM's CustomResourceDefinitions (group `operators.coreos.com`) as OLM v0.46 serves them: names, scope,
 * versions, status subresources and printer columns, with the one schema default OLM relies on
 * (an OperatorGroup's `spec.upgradeStrategy`). The schemas keep unknown fields instead of spelling out every
 * property, so the API server stores what OLM writes without pruning.
 */

export const OLM_API_GROUP = 'operators.coreos.com';

/** A CustomResourceDefinition manifest (`apiextensions.k8s.io/v1`). */
export interface CrdManifest {
  readonly apiVersion: 'apiextensions.k8s.io/v1';
  readonly kind: 'CustomResourceDefinition';
  readonly metadata: { readonly name: string };
  readonly spec: Record<string, unknown>;
}

interface PrinterColumn {
  readonly name: string;
  readonly jsonPath: string;
  readonly type: 'string' | 'boolean' | 'date';
  readonly description?: string;
}

interface CrdFacts {
  readonly kind: string;
  readonly plural: string;
  readonly scope: 'Namespaced' | 'Cluster';
  readonly shortNames?: readonly string[];
  /** Served versions, the storage version first. */
  readonly versions: readonly string[];
  /** Objects without a spec are refused (the CRDs of OLM mark `spec` required for these kinds). */
  readonly specRequired: boolean;
  readonly columns?: readonly PrinterColumn[];
  readonly specDefault?: Record<string, unknown>;
}

const AGE: PrinterColumn = { name: 'Age', jsonPath: '.metadata.creationTimestamp', type: 'date' };

const OLM_CRDS: readonly CrdFacts[] = [
  {
    kind: 'CatalogSource',
    plural: 'catalogsources',
    scope: 'Namespaced',
    shortNames: ['catsrc'],
    versions: ['v1alpha1'],
    specRequired: true,
    columns: [
      {
        name: 'Display',
        jsonPath: '.spec.displayName',
        type: 'string',
        description: 'The pretty name of the catalog',
      },
      { name: 'Type', jsonPath: '.spec.sourceType', type: 'string', description: 'The type of the catalog' },
      {
        name: 'Publisher',
        jsonPath: '.spec.publisher',
        type: 'string',
        description: 'The publisher of the catalog',
      },
      AGE,
    ],
  },
  {
    kind: 'ClusterServiceVersion',
    plural: 'clusterserviceversions',
    scope: 'Namespaced',
    shortNames: ['csv', 'csvs'],
    versions: ['v1alpha1'],
    specRequired: true,
    columns: [
      { name: 'Display', jsonPath: '.spec.displayName', type: 'string', description: 'The name of the CSV' },
      { name: 'Version', jsonPath: '.spec.version', type: 'string', description: 'The version of the CSV' },
      {
        name: 'Release',
        jsonPath: '.spec.release',
        type: 'string',
        description: 'The release of this version of the CSV',
      },
      {
        name: 'Replaces',
        jsonPath: '.spec.replaces',
        type: 'string',
        description: 'The name of a CSV that this one replaces',
      },
      { name: 'Phase', jsonPath: '.status.phase', type: 'string' },
    ],
  },
  {
    kind: 'InstallPlan',
    plural: 'installplans',
    scope: 'Namespaced',
    shortNames: ['ip'],
    versions: ['v1alpha1'],
    specRequired: true,
    columns: [
      {
        name: 'CSV',
        jsonPath: '.spec.clusterServiceVersionNames[0]',
        type: 'string',
        description: 'The first CSV in the list of clusterServiceVersionNames',
      },
      { name: 'Approval', jsonPath: '.spec.approval', type: 'string', description: 'The approval mode' },
      { name: 'Approved', jsonPath: '.spec.approved', type: 'boolean' },
    ],
  },
  { kind: 'OLMConfig', plural: 'olmconfigs', scope: 'Cluster', versions: ['v1'], specRequired: false },
  {
    kind: 'OperatorCondition',
    plural: 'operatorconditions',
    scope: 'Namespaced',
    shortNames: ['condition'],
    versions: ['v2', 'v1'],
    specRequired: false,
  },
  {
    kind: 'OperatorGroup',
    plural: 'operatorgroups',
    scope: 'Namespaced',
    shortNames: ['og'],
    versions: ['v1', 'v1alpha2'],
    specRequired: false,
    specDefault: { upgradeStrategy: 'Default' },
  },
  { kind: 'Operator', plural: 'operators', scope: 'Cluster', versions: ['v1'], specRequired: false },
  {
    kind: 'Subscription',
    plural: 'subscriptions',
    scope: 'Namespaced',
    shortNames: ['sub', 'subs'],
    versions: ['v1alpha1'],
    specRequired: true,
    columns: [
      { name: 'Package', jsonPath: '.spec.name', type: 'string', description: 'The package subscribed to' },
      {
        name: 'Source',
        jsonPath: '.spec.source',
        type: 'string',
        description: 'The catalog source for the specified package',
      },
      {
        name: 'Channel',
        jsonPath: '.spec.channel',
        type: 'string',
        description: 'The channel of updates to subscribe to',
      },
    ],
  },
];

function schema(facts: CrdFacts): Record<string, unknown> {
  const open = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  return {
    type: 'object',
    required: facts.specRequired ? ['metadata', 'spec'] : ['metadata'],
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { type: 'object' },
      spec: facts.specDefault ? { ...open, default: facts.specDefault } : open,
      status: open,
    },
  };
}

function crd(facts: CrdFacts): CrdManifest {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${facts.plural}.${OLM_API_GROUP}` },
    spec: {
      group: OLM_API_GROUP,
      names: {
        categories: ['olm'],
        kind: facts.kind,
        listKind: `${facts.kind}List`,
        plural: facts.plural,
        singular: facts.kind.toLowerCase(),
        ...(facts.shortNames ? { shortNames: facts.shortNames } : {}),
      },
      scope: facts.scope,
      versions: facts.versions.map((name, i) => ({
        name,
        served: true,
        storage: i === 0,
        schema: { openAPIV3Schema: schema(facts) },
        subresources: { status: {} },
        ...(facts.columns ? { additionalPrinterColumns: facts.columns } : {}),
      })),
    },
  };
}

/** OLM's eight CRDs, in the order of OLM's release manifest (by plural). */
export function olmCrds(): CrdManifest[] {
  return OLM_CRDS.map(crd);
}

/** The plural (the resource, and the first part of its CRD's name) of each OLM kind. */
export function olmKindPlural(kind: string): string | undefined {
  return OLM_CRDS.find((c) => c.kind === kind)?.plural;
}
