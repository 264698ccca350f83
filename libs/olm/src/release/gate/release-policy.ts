import type { Stats } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { Ajv, type ErrorObject } from 'ajv';
import { MAX_YAML_DEPTH, yamlDepthError } from '../../go-compat/yaml-depth.js';
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

/** The largest policy file read, 1 MiB: a policy is two short lists, and `/dev/zero` must not fill memory. */
export const MAX_RELEASE_POLICY_BYTES = 1024 * 1024;

/** Aliases a policy may expand, as the other YAML readers allow: enough for any policy, not for a bomb. */
const MAX_ALIAS_COUNT = 100;

/** The policy `text` states; `file` names it in errors. An empty file is the default policy. */
export function parseReleasePolicy(text: string, file: string): ReleasePolicy {
  // Measured before parsing: the parser composes recursively and would run out of stack first.
  const tooDeep = yamlDepthError(text);
  if (tooDeep !== undefined) {
    throw new ReleasePolicyError(
      `${file}: line ${tooDeep.line}: nested deeper than ${MAX_YAML_DEPTH} levels, which no policy needs`,
    );
  }
  const yaml = yamlLibrary();
  const doc = yaml.parseDocument(text);
  if (doc.errors.length > 0) {
    throw new ReleasePolicyError(`${file}: not YAML: ${(doc.errors[0]?.message ?? '').split('\n')[0]}`);
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) ?? {};
  } catch (err) {
    throw new ReleasePolicyError(`${file}: not YAML: ${(err as Error).message.split('\n')[0]}`);
  }
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

/**
 * The policy in the YAML file at `path`: a regular file of at most {@link MAX_RELEASE_POLICY_BYTES}. The path is
 * measured before it is opened (opening a FIFO would wait for a writer) and the opened file again, and it is
 * read no further than the bound, so a file that changes in between is refused too.
 */
export async function readReleasePolicy(path: string): Promise<ReleasePolicy> {
  const cannotRead = (err: unknown): ReleasePolicyError =>
    new ReleasePolicyError(
      `${path}: cannot read the policy (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  const tooLarge = (size: string): ReleasePolicyError =>
    new ReleasePolicyError(
      `${path}: ${size}, larger than a policy may be (${MAX_RELEASE_POLICY_BYTES} bytes)`,
    );
  const refuse = (info: Stats): void => {
    if (!info.isFile()) throw new ReleasePolicyError(`${path}: not a regular file; a policy is a YAML file`);
    if (info.size > MAX_RELEASE_POLICY_BYTES) throw tooLarge(`${info.size} bytes`);
  };
  refuse(await stat(path).catch((err: unknown) => Promise.reject(cannotRead(err))));
  const handle = await open(path, 'r').catch((err: unknown) => Promise.reject(cannotRead(err)));
  try {
    refuse(await handle.stat());
    // One byte more than the bound: a file that grew since it was measured is refused, not cut short.
    const buffer = Buffer.alloc(MAX_RELEASE_POLICY_BYTES + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > MAX_RELEASE_POLICY_BYTES) throw tooLarge('more bytes');
    }
    return parseReleasePolicy(buffer.toString('utf8', 0, length), path);
  } catch (err) {
    throw err instanceof ReleasePolicyError ? err : cannotRead(err);
  } finally {
    await handle.close();
  }
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
