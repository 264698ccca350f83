import { isDeepStrictEqual } from 'node:util';
import { goFormatUnstructuredContent } from '../go-compat/go-format.js';
import { parseRequestUri } from '../go-compat/index.js';
import { isRecord, type Manifest } from '../manifest/manifest.js';
import { type InternalSpec, type InternalVersion, str, toInternal } from './crd-internal.js';
import {
  type FieldError,
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  toValidationError,
} from './field-error.js';
import { isDns1035Label, isDns1123Subdomain } from './k8s-names.js';
import { validateObjectMeta } from './object-meta.js';
import type { ManifestResult } from './result.js';

/**
 * The CRD validator of operator-framework/api (`internal/crd.go`): apply the apiextensions defaults, convert
 * to the internal version, run Kubernetes' `ValidateCustomResourceDefinition` and drop every finding whose
 * field mentions `openAPIV3Schema` or `status`.
 *
 * Implemented Kubernetes checks: object metadata and the `<plural>.<group>` name, group, scope, version
 * names/storage/uniqueness, `spec.version`, names, printer columns, scale subresource, conversion, defaults
 * with `preserveUnknownFields`, `preserveUnknownFields: true`, and the approval annotation of protected
 * groups. Schema structure checks are not implemented (upstream discards most of them anyway).
 */

function schemaHas(schema: unknown, key: string): boolean {
  if (Array.isArray(schema)) return schema.some((s) => schemaHas(s, key));
  if (!isRecord(schema)) return false;
  if (key in schema && schema[key] !== undefined) return true;
  return Object.entries(schema).some(
    ([k, v]) => k !== 'default' && k !== 'example' && k !== 'enum' && schemaHas(v, key),
  );
}

function openApiSchemaOf(validation: unknown): unknown {
  return isRecord(validation) ? validation.openAPIV3Schema : undefined;
}

function validateSimpleJsonPath(s: string, field: string): FieldError[] {
  if (s.length === 0) return [fieldInvalid(field, s, 'must not be empty')];
  if (!s.startsWith('.')) return [fieldInvalid(field, s, 'must be a simple json path starting with .')];
  return [];
}

function validateSubresources(subresources: unknown, field: string): FieldError[] {
  if (!isRecord(subresources) || !isRecord(subresources.scale)) return [];
  const scale = subresources.scale;
  const errs: FieldError[] = [];
  const check = (key: string, prefixes: string[], message: string, required: boolean) => {
    const value = str(scale[key]);
    const path = `${field}.scale.${key}`;
    if (value.length === 0) {
      if (required) errs.push(fieldRequired(path, ''));
      return;
    }
    const pathErrs = validateSimpleJsonPath(value, path);
    if (pathErrs.length > 0) errs.push(...pathErrs);
    else if (!prefixes.some((p) => value.startsWith(p))) errs.push(fieldInvalid(path, value, message));
  };
  check('specReplicasPath', ['.spec.'], 'should be a json path under .spec', true);
  check('statusReplicasPath', ['.status.'], 'should be a json path under .status', true);
  check(
    'labelSelectorPath',
    ['.spec.', '.status.'],
    'should be a json path under either .spec or .status',
    false,
  );
  return errs;
}

const COLUMN_TYPES = ['boolean', 'date', 'integer', 'number', 'string'];
const COLUMN_FORMATS = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];

function validateColumn(raw: unknown, field: string): FieldError[] {
  const col = isRecord(raw) ? raw : {};
  const errs: FieldError[] = [];
  if (str(col.name) === '') errs.push(fieldRequired(`${field}.name`, ''));
  const type = str(col.type);
  if (type === '') errs.push(fieldRequired(`${field}.type`, `must be one of ${COLUMN_TYPES.join(',')}`));
  else if (!COLUMN_TYPES.includes(type))
    errs.push(fieldInvalid(`${field}.type`, type, `must be one of ${COLUMN_TYPES.join(',')}`));
  const format = str(col.format);
  if (format !== '' && !COLUMN_FORMATS.includes(format)) {
    errs.push(fieldInvalid(`${field}.format`, format, `must be one of ${COLUMN_FORMATS.join(',')}`));
  }
  const jsonPath = str(col.jsonPath ?? col.JSONPath);
  if (jsonPath === '') errs.push(fieldRequired(`${field}.JSONPath`, ''));
  else errs.push(...validateSimpleJsonPath(jsonPath, `${field}.JSONPath`));
  return errs;
}

function versionsValue(spec: InternalSpec): { json: unknown; goValue: string } {
  // Kubernetes prints the internal version structs; they are approximated by their JSON here.
  const json = spec.versions.map((v) => ({ Name: v.name, Served: v.served, Storage: v.storage }));
  return { json, goValue: goFormatUnstructuredContent(json) };
}

function validateNames(names: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  const dns = (key: string, value: string, lower: boolean) => {
    if (value.length === 0) return;
    const msgs = isDns1035Label(lower ? value.toLowerCase() : value);
    if (msgs.length === 0) return;
    const detail = lower
      ? `may have mixed case, but should otherwise match: ${msgs.join(',')}`
      : msgs.join(',');
    errs.push(fieldInvalid(`spec.names.${key}`, value, detail));
  };
  dns('plural', str(names.plural), false);
  dns('singular', str(names.singular), false);
  dns('kind', str(names.kind), true);
  dns('listKind', str(names.listKind), true);
  (Array.isArray(names.shortNames) ? names.shortNames : []).forEach((s, i) => {
    const msgs = isDns1035Label(str(s));
    if (msgs.length > 0) errs.push(fieldInvalid(`spec.names.shortNames[${i}]`, str(s), msgs.join(',')));
  });
  if (str(names.kind) !== '' && names.kind === names.listKind) {
    errs.push(
      fieldInvalid('spec.names.listKind', str(names.listKind), 'kind and listKind may not be the same'),
    );
  }
  (Array.isArray(names.categories) ? names.categories : []).forEach((c, i) => {
    const msgs = isDns1035Label(str(c));
    if (msgs.length > 0) errs.push(fieldInvalid(`spec.names.categories[${i}]`, str(c), msgs.join(',')));
  });
  return errs;
}

function validateConversion(conversion: Record<string, unknown> | undefined): FieldError[] {
  if (conversion === undefined) return [];
  const errs: FieldError[] = [];
  const strategy = str(conversion.strategy);
  if (strategy === '') errs.push(fieldRequired('spec.conversion.strategy', ''));
  else if (strategy !== 'None' && strategy !== 'Webhook') {
    errs.push(fieldNotSupported('spec.conversion.strategy', strategy, ['None', 'Webhook']));
  }
  const webhook = isRecord(conversion.webhook) ? conversion.webhook : undefined;
  const clientConfig = conversion.webhookClientConfig ?? webhook?.clientConfig;
  const reviewVersions = conversion.conversionReviewVersions ?? webhook?.conversionReviewVersions;
  if (strategy === 'Webhook') {
    if (!isRecord(clientConfig)) {
      errs.push(
        fieldRequired('spec.conversion.webhookClientConfig', 'required when strategy is set to Webhook'),
      );
    } else if ((clientConfig.url === undefined) === (clientConfig.service === undefined)) {
      errs.push(
        fieldRequired('spec.conversion.webhookClientConfig', 'exactly one of url or service is required'),
      );
    }
    const versions = Array.isArray(reviewVersions) ? reviewVersions.map(str) : [];
    if (versions.length === 0) errs.push(fieldRequired('spec.conversion.conversionReviewVersions', ''));
    else {
      const seen = new Set<string>();
      versions.forEach((v, i) => {
        const path = `spec.conversion.conversionReviewVersions[${i}]`;
        if (seen.has(v)) {
          errs.push(fieldInvalid(path, v, 'duplicate version'));
          return;
        }
        seen.add(v);
        for (const msg of isDns1035Label(v)) errs.push(fieldInvalid(path, v, msg));
      });
      if (!versions.some((v) => v === 'v1' || v === 'v1beta1')) {
        errs.push(
          fieldInvalid(
            'spec.conversion.conversionReviewVersions',
            { json: versions, goValue: `[${versions.join(' ')}]` },
            'must include at least one of v1, v1beta1',
          ),
        );
      }
    }
  } else {
    if (clientConfig !== undefined && clientConfig !== null) {
      errs.push(
        fieldForbidden(
          'spec.conversion.webhookClientConfig',
          'should not be set when strategy is not set to Webhook',
        ),
      );
    }
    if (Array.isArray(reviewVersions) && reviewVersions.length > 0) {
      errs.push(
        fieldForbidden(
          'spec.conversion.conversionReviewVersions',
          'should not be set when strategy is not set to Webhook',
        ),
      );
    }
  }
  return errs;
}

function validateApiApproval(crd: Manifest, group: string): FieldError[] {
  const isProtected =
    group === 'k8s.io' ||
    group.endsWith('.k8s.io') ||
    group === 'kubernetes.io' ||
    group.endsWith('.kubernetes.io');
  if (!isProtected) return [];
  const key = 'api-approved.kubernetes.io';
  const annotation = crd.metadata.annotations?.[key] ?? '';
  const field = `metadata.annotations[${key}]`;
  if (annotation.length === 0) {
    return [
      fieldRequired(
        field,
        `protected groups must have approval annotation "${key}", see https://github.com/kubernetes/enhancements/pull/1111`,
      ),
    ];
  }
  if (annotation.startsWith('unapproved')) return [];
  const url = parseRequestUri(annotation);
  if (url.ok && url.host.length > 0 && url.scheme.length > 0) return [];
  return [
    fieldInvalid(
      field,
      annotation,
      `protected groups must have approval annotation "${key}" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111`,
    ),
  ];
}

type CrdRule = (spec: InternalSpec, crd: Manifest) => FieldError[];

/** Kubernetes' `ValidateCustomResourceDefinition` rules, in its order (which is the order of the findings). */
const CRD_RULES: readonly CrdRule[] = [
  metadataErrors,
  groupErrors,
  scopeErrors,
  defaultsNeedPruningErrors,
  perVersionErrors,
  topLevelAndPerVersionExclusiveErrors,
  perVersionNotAllIdenticalErrors,
  uniqueVersionNamesErrors,
  storageVersionErrors,
  legacyVersionErrors,
  requiredNamesErrors,
  (spec) => validateNames(spec.names),
  (spec) => validateSubresources(spec.subresources, 'spec.subresources'),
  (spec) => spec.columns.flatMap((c, i) => validateColumn(c, `spec.additionalPrinterColumns[${i}]`)),
  conversionNeedsPruningErrors,
  (spec) => validateConversion(spec.conversion),
  (spec, crd) => validateApiApproval(crd, spec.group),
  preserveUnknownFieldsErrors,
];

/** Kubernetes' findings for one CRD, before operator-framework/api filters them. */
export function kubernetesCrdErrors(crd: Manifest): FieldError[] {
  const spec = toInternal(crd);
  return CRD_RULES.flatMap((rule) => rule(spec, crd));
}

/** Object metadata; the name must be `<plural>.<group>`. */
function metadataErrors(spec: InternalSpec, crd: Manifest): FieldError[] {
  return validateObjectMeta(crd.metadata, {
    requiresNamespace: false,
    nameFn: (name) => {
      const msgs = isDns1123Subdomain(name);
      if (name !== `${str(spec.names.plural)}.${spec.group}`)
        msgs.push('must be spec.names.plural+"."+spec.group');
      return msgs;
    },
  });
}

function groupErrors(spec: InternalSpec): FieldError[] {
  if (spec.group.length === 0) return [fieldRequired('spec.group', '')];
  const msgs = isDns1123Subdomain(spec.group);
  if (msgs.length > 0) return [fieldInvalid('spec.group', spec.group, msgs.join(','))];
  if (spec.group.split('.').length < 2) {
    return [fieldInvalid('spec.group', spec.group, 'should be a domain with at least one dot')];
  }
  return [];
}

function scopeErrors(spec: InternalSpec): FieldError[] {
  if (spec.scope === '') return [fieldRequired('spec.scope', '')];
  if (spec.scope !== 'Cluster' && spec.scope !== 'Namespaced') {
    return [fieldNotSupported('spec.scope', spec.scope, ['Cluster', 'Namespaced'])];
  }
  return [];
}

/** Defaults in a schema are only applied to pruned objects. */
function defaultsNeedPruningErrors(spec: InternalSpec): FieldError[] {
  const hasDefaults =
    schemaHas(openApiSchemaOf(spec.validation), 'default') ||
    spec.versions.some((v) => schemaHas(openApiSchemaOf(v.schema), 'default'));
  if (!hasDefaults || spec.preserveUnknownFields === false) return [];
  return [
    fieldInvalid('spec.preserveUnknownFields', true, 'must be false in order to use defaults in the schema'),
  ];
}

/** Each version's name, deprecation warning, subresources and printer columns. */
function perVersionErrors(spec: InternalSpec): FieldError[] {
  return spec.versions.flatMap((v, i) => {
    const errs: FieldError[] = [];
    const msgs = isDns1035Label(v.name);
    if (msgs.length > 0) errs.push(fieldInvalid(`spec.versions[${i}].name`, v.name, msgs.join(',')));
    if (!v.deprecated && v.deprecationWarning !== undefined && v.deprecationWarning !== null) {
      errs.push(
        fieldInvalid(
          `spec.versions[${i}].deprecationWarning`,
          str(v.deprecationWarning),
          'can only be set for deprecated versions',
        ),
      );
    }
    errs.push(...validateSubresources(v.subresources, `spec.versions[${i}].subresources`));
    (v.columns ?? []).forEach((c, j) => {
      errs.push(...validateColumn(c, `spec.versions[${i}].additionalPrinterColumns[${j}]`));
    });
    return errs;
  });
}

function topLevelAndPerVersionExclusiveErrors(spec: InternalSpec): FieldError[] {
  const errs: FieldError[] = [];
  if (spec.validation !== undefined && spec.versions.some((v) => v.schema !== undefined)) {
    errs.push(fieldForbidden('spec.validation', 'top-level and per-version schemas are mutually exclusive'));
  }
  if (spec.subresources !== undefined && spec.versions.some((v) => v.subresources !== undefined)) {
    errs.push(
      fieldForbidden('spec.subresources', 'top-level and per-version subresources are mutually exclusive'),
    );
  }
  if (spec.columns.length > 0 && spec.versions.some((v) => v.columns !== undefined)) {
    errs.push(
      fieldForbidden(
        'spec.additionalPrinterColumns',
        'top-level and per-version additionalPrinterColumns are mutually exclusive',
      ),
    );
  }
  return errs;
}

/** A per-version field set to the same value in every version belongs at the top level. */
function perVersionNotAllIdenticalErrors(spec: InternalSpec): FieldError[] {
  const [first] = spec.versions;
  const identical = (pick: (v: InternalVersion) => unknown) =>
    first !== undefined &&
    pick(first) !== undefined &&
    spec.versions.every((v) => pick(v) !== undefined && isDeepStrictEqual(pick(v), pick(first)));
  const errs: FieldError[] = [];
  const notIdentical = (what: string, topLevel: string) =>
    fieldInvalid(
      'spec.versions',
      versionsValue(spec),
      `per-version ${what} may not all be set to identical values (top-level ${topLevel} should be used instead)`,
    );
  if (identical((v) => v.schema)) errs.push(notIdentical('schemas', 'validation'));
  if (identical((v) => v.subresources)) errs.push(notIdentical('subresources', 'subresources'));
  if (identical((v) => v.columns)) {
    errs.push(notIdentical('additionalPrinterColumns', 'additionalPrinterColumns'));
  }
  return errs;
}

function uniqueVersionNamesErrors(spec: InternalSpec): FieldError[] {
  const names = spec.versions.map((v) => v.name);
  if (new Set(names).size === names.length) return [];
  return [fieldInvalid('spec.versions', versionsValue(spec), 'must contain unique version names')];
}

function storageVersionErrors(spec: InternalSpec): FieldError[] {
  if (spec.versions.filter((v) => v.storage).length === 1) return [];
  return [
    fieldInvalid(
      'spec.versions',
      versionsValue(spec),
      'must have exactly one version marked as storage version',
    ),
  ];
}

/** The deprecated `spec.version` must be a valid version name and the first of `spec.versions`. */
function legacyVersionErrors(spec: InternalSpec): FieldError[] {
  if (spec.version.length === 0) return [];
  const errs: FieldError[] = [];
  const msgs = isDns1035Label(spec.version);
  if (msgs.length > 0) errs.push(fieldInvalid('spec.version', spec.version, msgs.join(',')));
  const [first] = spec.versions;
  if (first !== undefined && first.name !== spec.version) {
    errs.push(fieldInvalid('spec.version', spec.version, 'must match the first version in spec.versions'));
  }
  return errs;
}

function requiredNamesErrors(spec: InternalSpec): FieldError[] {
  return ['plural', 'singular', 'kind', 'listKind']
    .filter((key) => str(spec.names[key]) === '')
    .map((key) => fieldRequired(`spec.names.${key}`, ''));
}

/** Conversion other than `None` needs pruned objects. */
function conversionNeedsPruningErrors(spec: InternalSpec): FieldError[] {
  const strategy = str(spec.conversion?.strategy);
  if (strategy === 'None' || strategy === '' || spec.preserveUnknownFields === false) return [];
  return [
    fieldInvalid('spec.conversion.strategy', strategy, 'must be None if spec.preserveUnknownFields is true'),
  ];
}

function preserveUnknownFieldsErrors(spec: InternalSpec): FieldError[] {
  if (spec.preserveUnknownFields !== true) return [];
  return [
    fieldInvalid(
      'spec.preserveUnknownFields',
      { json: true, goValue: 'true' },
      'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead',
    ),
  ];
}

/** Validates one CRD (`apiextensions.k8s.io/v1` or `v1beta1`); the result is named only when it has errors. */
export function validateCrd(crd: Manifest): ManifestResult {
  const errors = kubernetesCrdErrors(crd)
    .filter((e) => !e.field.includes('openAPIV3Schema') && !e.field.includes('status'))
    .map(toValidationError);
  return { name: errors.length > 0 ? (crd.metadata.name ?? '') : '', errors };
}

/** The CRD validator over several CRDs (one result each). */
export function validateCrds(crds: readonly Manifest[]): ManifestResult[] {
  return crds.map(validateCrd);
}
