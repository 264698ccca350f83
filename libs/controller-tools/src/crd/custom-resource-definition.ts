/** A JSON Schema object as the CRD's OpenAPI v3 validation takes it. */
export type OpenApiSchema = Record<string, unknown>;

export interface CrdVersion {
  readonly name: string;
  readonly served: boolean;
  readonly storage: boolean;
  /** Served with a warning on every request (kubectl prints it). */
  readonly deprecated?: boolean;
  /** The warning; default: the API server's "<group>/<version> <Kind> is deprecated". */
  readonly deprecationWarning?: string;
  readonly schema: OpenApiSchema;
  /** @default true */
  readonly statusSubresource?: boolean;
  readonly printerColumns?: readonly { name: string; type: string; jsonPath: string; description?: string }[];
}

export interface CrdDefinition {
  readonly group: string;
  readonly kind: string;
  readonly plural: string;
  readonly singular?: string;
  readonly shortNames?: readonly string[];
  readonly scope?: 'Namespaced' | 'Cluster';
  readonly versions: readonly CrdVersion[];
}

/**
 * Drops what JSON Schema builders attach that the API server's structural schema rejects (`$id`, `$schema`,
 * `additionalProperties: false`, TypeBox symbols) and keeps the OpenAPI subset and `x-kubernetes-*`.
 */
export function toStructuralSchema(schema: unknown): OpenApiSchema {
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (!node || typeof node !== 'object') return node;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === '$id' || key === '$schema') continue;
      if (key === 'additionalProperties' && value === false) continue;
      out[key] =
        key === 'properties'
          ? Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, walk(v)]))
          : walk(value);
    }
    return out;
  };
  return walk(JSON.parse(JSON.stringify(schema))) as OpenApiSchema;
}

/** The apiextensions.k8s.io/v1 CustomResourceDefinition for a definition. */
export function customResourceDefinition(def: CrdDefinition) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${def.plural}.${def.group}` },
    spec: {
      group: def.group,
      names: {
        kind: def.kind,
        listKind: `${def.kind}List`,
        plural: def.plural,
        singular: def.singular ?? def.kind.toLowerCase(),
        ...(def.shortNames?.length ? { shortNames: [...def.shortNames] } : {}),
      },
      scope: def.scope ?? 'Namespaced',
      versions: def.versions.map((v) => ({
        name: v.name,
        served: v.served,
        storage: v.storage,
        ...(v.deprecated ? { deprecated: true } : {}),
        ...(v.deprecated && v.deprecationWarning ? { deprecationWarning: v.deprecationWarning } : {}),
        ...(v.printerColumns?.length
          ? { additionalPrinterColumns: v.printerColumns.map((c) => ({ ...c })) }
          : {}),
        schema: { openAPIV3Schema: toStructuralSchema(v.schema) },
        ...((v.statusSubresource ?? true) ? { subresources: { status: {} } } : {}),
      })),
    },
  };
}

/** A CustomResourceDefinition as {@link customResourceDefinition} builds it. */
export type CustomResourceDefinition = ReturnType<typeof customResourceDefinition>;

/** Where the API server reaches a conversion webhook: a Service in the cluster or a URL, and the CA to trust. */
export type WebhookClientConfig =
  | {
      readonly service: {
        readonly name: string;
        readonly namespace: string;
        readonly path?: string;
        readonly port?: number;
      };
      readonly caBundle?: string;
    }
  | { readonly url: string; readonly caBundle?: string };

/**
 * The CRD with `spec.conversion` calling a webhook (ConversionReview v1), as kubebuilder's
 * `webhook_in_<plural>.yaml` patch adds it; the base CRD stays without, since OLM adds its own.
 */
export function withConversionWebhook(
  crd: CustomResourceDefinition,
  clientConfig: WebhookClientConfig,
): CustomResourceDefinition & { spec: { conversion: object } } {
  return {
    ...crd,
    spec: {
      ...crd.spec,
      conversion: {
        strategy: 'Webhook',
        webhook: { clientConfig: structuredClone(clientConfig), conversionReviewVersions: ['v1'] },
      },
    },
  };
}
