import { goFormatUnstructuredContent } from '../go-compat/go-format.js';
import { isRecord, type Manifest } from '../manifest/manifest.js';
import { errInvalidObject, type ManifestResult, type ValidationError, warnInvalidObject } from './result.js';

const DEFAULT_SCCS = [
  'privileged',
  'restricted',
  'anyuid',
  'hostaccess',
  'hostmount-anyuid',
  'hostnetwork',
  'node-exporter',
  'nonroot',
];

const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const strs = (v: unknown): string[] => arr(v).filter((x): x is string => typeof x === 'string');
const has = (list: string[], ...items: string[]) => items.some((i) => list.includes(i));

function auditRules(rules: unknown): ValidationError[] {
  const errs: ValidationError[] = [];
  for (const rule of arr(rules)) {
    const r = isRecord(rule) ? rule : {};
    if (
      has(strs(r.apiGroups), 'policy') &&
      has(strs(r.resources), 'poddisruptionbudgets') &&
      has(strs(r.verbs), '*', 'create', 'update', 'patch')
    ) {
      errs.push(
        warnInvalidObject(
          'RBAC includes permission to create/update poddisruptionbudgets, which could impact cluster stability',
          goFormatUnstructuredContent(rule),
        ),
      );
    }
  }
  for (const rule of arr(rules)) {
    const r = isRecord(rule) ? rule : {};
    if (
      has(strs(r.apiGroups), 'security.openshift.io') &&
      has(strs(r.resources), 'securitycontextconstraints') &&
      has(strs(r.verbs), '*', 'delete', 'update', 'patch') &&
      has(strs(r.resourceNames), ...DEFAULT_SCCS)
    ) {
      errs.push(
        errInvalidObject(
          goFormatUnstructuredContent(rule),
          'RBAC includes permission to modify default securitycontextconstraints, which could impact cluster stability',
        ),
      );
    }
  }
  return errs;
}

/**
 * The optional object validator (`internal/object.go`, opm's `bundle-objects`): PodDisruptionBudgets,
 * PriorityClasses and RBAC that could hurt cluster stability. One unnamed result per checked object. The bad
 * values are the objects and rules as `%v` of their decoded JSON (upstream prints its typed structs).
 */
export function validateObjects(objects: readonly Manifest[]): ManifestResult[] {
  const results: ManifestResult[] = [];
  for (const obj of objects) {
    const errors: ValidationError[] = [];
    switch (obj.kind) {
      case 'PodDisruptionBudget': {
        const spec = isRecord(obj.spec) ? obj.spec : {};
        const maxUnavailable = spec.maxUnavailable;
        // Upstream tests `IntVal == 0`, which also holds for every string value (kept as is).
        if (
          maxUnavailable !== undefined &&
          maxUnavailable !== null &&
          (maxUnavailable === 0 || typeof maxUnavailable === 'string')
        ) {
          errors.push(
            errInvalidObject(
              goFormatUnstructuredContent(obj),
              'maxUnavailable field cannot be set to 0 or 0%',
            ),
          );
        }
        if (spec.minAvailable === '100%')
          errors.push(
            errInvalidObject(goFormatUnstructuredContent(obj), 'minAvailable field cannot be set to 100%'),
          );
        break;
      }
      case 'PriorityClass':
        if (obj.globalDefault === true)
          errors.push(
            errInvalidObject(goFormatUnstructuredContent(obj), 'globalDefault field cannot be set to true'),
          );
        break;
      case 'Role':
      case 'ClusterRole':
        errors.push(...auditRules(obj.rules));
        break;
      default:
        continue;
    }
    results.push({ name: '', errors });
  }
  return results;
}
