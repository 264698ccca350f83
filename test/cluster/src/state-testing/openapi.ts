/** The parts of a CRD's structural OpenAPI v3 schema (`JSONSchemaProps`) the step generator reads. */
export interface OpenApiSchema {
  readonly type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  readonly properties?: Readonly<Record<string, OpenApiSchema>>;
  readonly required?: readonly string[];
  readonly additionalProperties?: OpenApiSchema | boolean;
  readonly items?: OpenApiSchema;
  readonly enum?: readonly unknown[];
  readonly default?: unknown;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: boolean;
  readonly exclusiveMaximum?: boolean;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly format?: string;
  readonly nullable?: boolean;
  readonly anyOf?: readonly OpenApiSchema[];
  readonly 'x-kubernetes-int-or-string'?: boolean;
  readonly 'x-kubernetes-preserve-unknown-fields'?: boolean;
}

/** The parts of a CustomResourceDefinition the state tests read. */
export interface SchemaCrd {
  readonly spec: {
    readonly group: string;
    readonly names: { readonly kind: string; readonly plural: string };
    readonly scope?: string;
    readonly versions: readonly {
      readonly name: string;
      readonly storage: boolean;
      readonly schema?: { readonly openAPIV3Schema?: unknown };
    }[];
  };
}

/** The `spec` schema of one version of the CRD (the storage version unless named). */
export function specSchemaOf(crd: SchemaCrd, version?: string): OpenApiSchema {
  const v = crd.spec.versions.find((x) => (version ? x.name === version : x.storage));
  const root = v?.schema?.openAPIV3Schema as OpenApiSchema | undefined;
  const spec = root?.properties?.spec;
  if (!spec) throw new Error(`the CRD has no spec schema at version ${version ?? '(storage)'}`);
  return spec;
}

/** Kubernetes' resource quantity pattern, as CRDs carry it for `x-kubernetes-int-or-string` quantities. */
const QUANTITY_PATTERN_START = '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))';

/** Whether the schema is a resource quantity: int-or-string with the quantity pattern. */
export function isQuantitySchema(schema: OpenApiSchema): boolean {
  return (
    schema['x-kubernetes-int-or-string'] === true && (schema.pattern ?? '').startsWith(QUANTITY_PATTERN_START)
  );
}
