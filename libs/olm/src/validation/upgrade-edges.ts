import { goQuote } from '../go-compat/go-format.js';
import { packageNameOf } from '../manifest/cluster-service-version.js';
import { isRecord } from '../manifest/manifest.js';
import { compareVersions, tryParseVersion, tryParseVersionTolerant } from '../semver/index.js';
import type { ValidationBundle } from './bundle-model.js';
import {
  errFailedValidation,
  type ManifestResult,
  type ValidationError,
  warnFailedValidation,
} from './result.js';

const versionOfName = (name: string): string | undefined => {
  const i = name.indexOf('.v');
  return i > 0 ? name.slice(i + 2) : undefined;
};

/**
 * opkit's upgrade-edge checks (not part of operator-framework/api, which accepts all of these and leaves them
 * to `opm validate` on the catalog): `spec.replaces` and `spec.skips` must not name the CSV itself, and
 * `spec.replaces` should name an older version of the same package. Type `ValidationFailed`, value the CSV name.
 */
export function validateUpgradeEdges(bundle: ValidationBundle): ManifestResult {
  const errors: ValidationError[] = [];
  const csv = bundle.csv;
  if (csv === undefined) return { name: bundle.name, errors };
  const name = csv.metadata.name ?? '';
  const spec: Record<string, unknown> = isRecord(csv.spec) ? csv.spec : {};
  const replaces = typeof spec.replaces === 'string' ? spec.replaces : '';
  const own = tryParseVersionTolerant(typeof spec.version === 'string' ? spec.version : '');
  if (replaces !== '') {
    if (replaces === name) {
      errors.push(errFailedValidation(`spec.replaces ${goQuote(replaces)} refers to the CSV itself`, name));
    } else {
      if (packageNameOf(replaces) !== packageNameOf(name)) {
        errors.push(
          warnFailedValidation(
            `spec.replaces ${goQuote(replaces)} does not belong to package ${goQuote(packageNameOf(name) ?? '')}`,
            name,
          ),
        );
      }
      const replaced = tryParseVersion(versionOfName(replaces) ?? '');
      if (own !== undefined && replaced !== undefined && compareVersions(replaced, own) >= 0) {
        errors.push(
          errFailedValidation(`spec.replaces ${goQuote(replaces)} is not older than ${goQuote(name)}`, name),
        );
      }
    }
  }
  for (const skip of Array.isArray(spec.skips) ? spec.skips : []) {
    if (skip === name)
      errors.push(errFailedValidation(`spec.skips contains the CSV itself (${goQuote(name)})`, name));
  }
  return { name: bundle.name, errors };
}
