import { readFile } from 'node:fs/promises';
import { Ajv, type ErrorObject } from 'ajv';
import { yamlLibrary } from '../../yaml-library.js';

/**
 * Which findings decide a release. `fail`: globs of the rules that fail it (absent: every finding of severity
 * `error`); `ignore`: globs of the rules left out of the report (counted, never failing). A finding both
 * ignored and failing is ignored.
 */
export interface ReleasePolicy {
  readonly fail?: readonly string[];
  readonly ignore: readonly string[];
}

/** The policy without a file: every `error` fails, nothing is ignored. */
export const DEFAULT_RELEASE_POLICY: ReleasePolicy = { ignore: [] };

/** A rule glob: `<family>/<rule>` in kebab case, where `*` stands for any part (`crd/*`, `*\/escalation`, `*`). */
const RULE_GLOB = '^[a-z0-9*][a-z0-9*-]*(/[a-z0-9*][a-z0-9*-]*)?$';

const POLICY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    fail: { type: 'array', items: { type: 'string', pattern: RULE_GLOB } },
    ignore: { type: 'array', items: { type: 'string', pattern: RULE_GLOB } },
  },
} as const;

/** A policy file that is not YAML or not a policy: the message names the file and the field. */
export class ReleasePolicyError extends Error {
  readonly code = 'OPKIT_RELEASE_POLICY_INVALID';
  constructor(message: string) {
    super(message);
    this.name = 'ReleasePolicyError';
  }
}

let validate: ReturnType<Ajv['compile']> | undefined;

/** The policy `text` states; `file` names it in errors. An empty file is the default policy. */
export function parseReleasePolicy(text: string, file: string): ReleasePolicy {
  const yaml = yamlLibrary();
  const doc = yaml.parseDocument(text);
  if (doc.errors.length > 0) {
    throw new ReleasePolicyError(`${file}: not YAML: ${(doc.errors[0]?.message ?? '').split('\n')[0]}`);
  }
  const value: unknown = doc.toJS() ?? {};
  validate ??= new Ajv({ allErrors: true }).compile(POLICY_SCHEMA);
  if (!validate(value)) {
    const error = validate.errors?.[0];
    throw new ReleasePolicyError(
      `${file}: ${error === undefined ? 'not a release policy' : describe(error)}`,
    );
  }
  const policy = value as { fail?: string[]; ignore?: string[] };
  return { ...(policy.fail === undefined ? {} : { fail: policy.fail }), ignore: policy.ignore ?? [] };
}

/** The policy in the YAML file at `path`. */
export async function readReleasePolicy(path: string): Promise<ReleasePolicy> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new ReleasePolicyError(
      `${path}: cannot read the policy (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  return parseReleasePolicy(text, path);
}

/** `fail[2]: must be a rule glob such as crd/* or permission/escalation`, `unknown field fails`. */
function describe(error: ErrorObject): string {
  const field = error.instancePath
    .split('/')
    .slice(1)
    .map((p, i) => (/^\d+$/.test(p) ? `[${p}]` : i === 0 ? p : `.${p}`))
    .join('');
  if (error.keyword === 'additionalProperties') {
    const name = String((error.params as { additionalProperty?: unknown }).additionalProperty);
    return `unknown field ${name} (a policy has fail and ignore)`;
  }
  if (error.keyword === 'pattern') {
    return `${field}: must be a rule glob such as crd/* or permission/escalation`;
  }
  if (error.keyword === 'type' && field === '') return 'must be a mapping with fail and ignore';
  return `${field}: ${error.message ?? 'is invalid'}`;
}
