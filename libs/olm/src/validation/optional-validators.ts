import type { OptionalValues, ValidationBundle } from './bundle-model.js';
import { validateDeprecatedApis } from './deprecated-apis.js';
import { validateGoodPractices } from './good-practices.js';
import { type ImageInspector, validateMultiArch } from './multiarch.js';
import { validateObjects } from './object.js';
import {
  validateCapabilities,
  validateCategories,
  validateOperatorHub,
  validateOperatorHubV2,
} from './operatorhub.js';
import type { ManifestResult } from './result.js';
import { validateUpgradeEdges } from './upgrade-edges.js';

/** A label selector that picks no validator, or does not parse. */
export class ValidatorSelectionError extends Error {
  override readonly name = 'ValidatorSelectionError';
  readonly code = 'OLM_VALIDATOR_SELECTOR_INVALID';
}

/** A validator `--select-optional` can pick. */
export interface OptionalValidator {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly description: string;
  /** `images`: the platforms of the images a validator reads (only `multiarch` does), read beforehand. */
  readonly validate: (
    bundle: ValidationBundle,
    values: OptionalValues,
    images: ImageInspector,
  ) => ManifestResult[];
}

/** The validator that reads the CSV's images (their platforms), which the caller reads before it runs. */
export const MULTIARCH_VALIDATOR = 'multiarch';

/** Suite label of operator-sdk's optional validators. */
export const OPERATOR_FRAMEWORK_SUITE = 'operatorframework';

/**
 * The optional validators, in the order they run: operator-sdk's (`operatorhub`, `operatorhubv2`,
 * `capabilities`, `categories`, `alpha-deprecated-apis`, `good-practices`, `multiarch`), opm's `bundle-objects`, and
 * opkit's own `upgrade-edges` (not upstream; suite `opkit`).
 */
export const OPTIONAL_VALIDATORS: readonly OptionalValidator[] = [
  {
    name: 'operatorhub',
    labels: { name: 'operatorhub' },
    description:
      'OperatorHub.io metadata validation (deprecated: use operatorhubv2, capabilities and categories)',
    validate: (b, v) => validateOperatorHub(b, v),
  },
  {
    name: 'operatorhubv2',
    labels: { name: 'operatorhubv2', suite: OPERATOR_FRAMEWORK_SUITE },
    description: 'OperatorHub.io metadata validation',
    validate: (b, v) => [validateOperatorHubV2(b, v)],
  },
  {
    name: 'capabilities',
    labels: { name: 'capabilities', suite: OPERATOR_FRAMEWORK_SUITE },
    description: 'OperatorHub.io capabilities level',
    validate: (b) => [validateCapabilities(b)],
  },
  {
    name: 'categories',
    labels: { name: 'categories', suite: OPERATOR_FRAMEWORK_SUITE },
    description: 'OperatorHub.io categories',
    validate: (b) => [validateCategories(b)],
  },
  {
    name: 'alpha-deprecated-apis',
    labels: { name: 'alpha-deprecated-apis', suite: OPERATOR_FRAMEWORK_SUITE },
    description:
      'APIs removed in Kubernetes 1.22, 1.25 and 1.26 (errors from k8s-version or minKubeVersion on)',
    validate: (b, v) => [validateDeprecatedApis(b, v)],
  },
  {
    name: 'good-practices',
    labels: { name: 'good-practices', suite: OPERATOR_FRAMEWORK_SUITE },
    description: 'operator-framework good practices',
    validate: (b) => [validateGoodPractices(b)],
  },
  {
    name: MULTIARCH_VALIDATOR,
    labels: { name: MULTIARCH_VALIDATOR },
    description:
      "multiple architectures: the CSV's arch/os labels and node affinity against the platforms its images provide (reads the images)",
    validate: (b, v, images) => [validateMultiArch(b, images, v)],
  },
  {
    name: 'bundle-objects',
    labels: { name: 'bundle-objects' },
    description: "opm's object checks: PodDisruptionBudgets, PriorityClasses, RBAC on PDBs and SCCs",
    validate: (b) => validateObjects(b.objects),
  },
  {
    name: 'upgrade-edges',
    labels: { name: 'upgrade-edges', suite: 'opkit' },
    description: 'opkit: replaces/skips/skipRange of the CSV (not an upstream check)',
    validate: (b) => [validateUpgradeEdges(b)],
  },
];

/** Parses a label selector of `key=value` / `key==value` / `key!=value` requirements joined by commas. */
function parseSelector(selector: string): { key: string; op: '=' | '!='; value: string }[] {
  return selector
    .split(',')
    .map((r) => r.trim())
    .filter((r) => r !== '')
    .map((r) => {
      const m = /^([^!=\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(r);
      if (m === null) throw new ValidatorSelectionError(`unable to parse requirement: ${JSON.stringify(r)}`);
      return { key: m[1]!, op: m[2] === '!=' ? '!=' : '=', value: m[3]! };
    });
}

/**
 * The validators a label selector picks, as `--select-optional` does.
 *
 * @throws {ValidatorSelectionError} `OLM_VALIDATOR_SELECTOR_INVALID`, with operator-sdk's message when it picks none.
 */
export function selectOptionalValidators(selector: string): OptionalValidator[] {
  if (selector.trim() === '') return [];
  const requirements = parseSelector(selector);
  const picked = OPTIONAL_VALIDATORS.filter((v) =>
    requirements.every((r) => (r.op === '=' ? v.labels[r.key] === r.value : v.labels[r.key] !== r.value)),
  );
  if (picked.length === 0)
    throw new ValidatorSelectionError(
      `selector ${JSON.stringify(selector)} does not match any validator labels`,
    );
  return picked;
}
