// The names one operator or one kind goes by, in every spelling the generated files need.

/** `postgres-lite` → `PostgresLite`; `Widget` stays `Widget`. */
function className(words: readonly string[]): string {
  return words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
}

/** Splits `PostgresLite`, `postgres-lite`, `postgres_lite` and `postgresLite` into lower-case words. */
function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[\s_-]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
}

/** A DNS-1123 label: what project, package and object names must be. */
const DNS_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

export interface OperatorNames {
  /** The Nx project and its folder: `postgres-lite`. */
  readonly name: string;
  /** The OLM package, the operator's image and its objects' prefix: `postgres-lite-operator`. */
  readonly packageName: string;
  /** `PostgresLite`, as in `createPostgresLiteOperator`. */
  readonly className: string;
  /** `Postgres Lite Operator`, the CSV's display name. */
  readonly displayName: string;
}

export function operatorNames(name: string): OperatorNames {
  const parts = words(name);
  const kebab = parts.join('-');
  if (!DNS_LABEL.test(kebab) || kebab.length > 40) {
    throw new Error(
      `operator name ${JSON.stringify(name)}: use lower-case letters, digits and '-', starting with a letter, at most 40 characters (e.g. postgres-lite)`,
    );
  }
  const packageName = kebab.endsWith('-operator') ? kebab : `${kebab}-operator`;
  const base = kebab.replace(/-operator$/, '');
  return {
    name: base,
    packageName,
    className: className(words(base)),
    displayName: `${words(base)
      .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
      .join(' ')} Operator`,
  };
}

export interface KindNames {
  /** `WidgetSet`. */
  readonly kind: string;
  /** `widgetset`: the CRD's singular name, file names of kubebuilder's config/ files. */
  readonly lower: string;
  /** `widgetsets`: the CRD's plural, the resource in RBAC rules. */
  readonly plural: string;
  /** `widget-set`: the TypeScript files. */
  readonly fileName: string;
  /** `widgetSet`: variables (`widgetSetCrd`). */
  readonly propertyName: string;
  /** `WIDGET_SET`: the type constant (`WIDGET_SET.apiVersion`). */
  readonly constantName: string;
  /** `Widget Set`. */
  readonly displayName: string;
}

/** The English plural of a lower-case kind, as kubebuilder forms a CRD's plural. */
export function pluralize(lower: string): string {
  if (/(s|x|z|ch|sh)$/.test(lower)) return `${lower}es`;
  if (/[^aeiou]y$/.test(lower)) return `${lower.slice(0, -1)}ies`;
  return `${lower}s`;
}

export function kindNames(kind: string, plural?: string): KindNames {
  if (!/^[A-Z][A-Za-z0-9]{0,62}$/.test(kind)) {
    throw new Error(
      `kind ${JSON.stringify(kind)}: an upper-camel-case name of letters and digits, e.g. WidgetSet`,
    );
  }
  const parts = words(kind);
  const lower = kind.toLowerCase();
  const resolvedPlural = plural ?? pluralize(lower);
  if (!DNS_LABEL.test(resolvedPlural)) {
    throw new Error(`plural ${JSON.stringify(resolvedPlural)}: lower-case letters and digits only`);
  }
  return {
    kind,
    lower,
    plural: resolvedPlural,
    fileName: parts.join('-'),
    propertyName: parts[0] + className(parts.slice(1)),
    constantName: parts.join('_').toUpperCase(),
    displayName: parts.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join(' '),
  };
}

/** A Kubernetes API version (`v1`, `v1alpha1`, `v2beta3`), refused with an example otherwise. */
export function parseVersion(version: string): string {
  if (!/^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$/.test(version)) {
    throw new Error(`api version ${JSON.stringify(version)}: e.g. v1, v1alpha1 or v2beta3`);
  }
  return version;
}

export interface ApiCoordinates {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/**
 * `cache.example.com/v1alpha1/Widget` → its parts. The group is a full API group (a DNS subdomain with at
 * least one dot, as the API server requires of CRDs); the version is a Kubernetes API version.
 */
export function parseApi(api: string): ApiCoordinates {
  const parts = api.split('/');
  if (parts.length !== 3) {
    throw new Error(
      `api ${JSON.stringify(api)}: give <group>/<version>/<Kind>, e.g. cache.example.com/v1alpha1/Widget`,
    );
  }
  const [group, version, kind] = parts as [string, string, string];
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$/.test(group)) {
    throw new Error(
      `api group ${JSON.stringify(group)}: a DNS subdomain with at least one dot, e.g. cache.example.com`,
    );
  }
  parseVersion(version);
  kindNames(kind);
  return { group, version, kind };
}
