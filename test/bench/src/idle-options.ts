import { OPERATOR_NODE_OPTIONS } from '@opkit/controller-runtime/manager';

/** One way of running the operator: node flags, and environment for its process. */
export interface IdleVariant {
  /** How the variant was given, for the table. */
  readonly label: string;
  readonly nodeOptions: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

/** What `bench:idle` measures, from its command line. */
export interface IdleOptions {
  /** RSS samples of each process, one a second. */
  readonly samples: number;
  /** Each is measured in turn against the same API server; the first also with the fleet. */
  readonly variants: readonly IdleVariant[];
  /** Fleet sizes measured after the idle figure, ascending. */
  readonly fleet: readonly number[];
  /** Also measure the Go baseline keeping our objects: idle, and with the same fleet steps. */
  readonly baseline: boolean;
}

/** The operator as its image runs it. */
export const SHIPPED_VARIANT: IdleVariant = {
  label: `shipped (${OPERATOR_NODE_OPTIONS.join(' ')})`,
  nodeOptions: OPERATOR_NODE_OPTIONS,
  env: {},
};

function positive(flag: string, text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${flag} takes a positive integer, got ${text}`);
  return value;
}

/** `--max-semi-space-size=1 MALLOC_ARENA_MAX=2`: words with a leading `-` are node flags, `NAME=VALUE` environment. */
export function parseVariant(text: string): IdleVariant {
  const nodeOptions: string[] = [];
  const env: Record<string, string> = {};
  for (const word of text.split(/\s+/).filter((w) => w.length > 0)) {
    if (word.startsWith('-')) nodeOptions.push(word);
    else if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) {
      const at = word.indexOf('=');
      env[word.slice(0, at)] = word.slice(at + 1);
    } else throw new Error(`--variant: ${word} is neither a node flag nor NAME=VALUE`);
  }
  return { label: text.trim() || '(no flags)', nodeOptions, env };
}

/** Parses `--samples=`, `--variant=` (repeatable; default the shipped flags), `--fleet=` and `--baseline`. */
export function parseIdleOptions(args: readonly string[]): IdleOptions {
  let samples = 7;
  const variants: IdleVariant[] = [];
  let fleet: number[] = [];
  let baseline = false;
  for (const arg of args) {
    const at = arg.indexOf('=');
    const [flag, value] = at < 0 ? [arg, ''] : [arg.slice(0, at), arg.slice(at + 1)];
    if (flag === '--samples') samples = positive(flag, value);
    else if (flag === '--variant') variants.push(value === 'shipped' ? SHIPPED_VARIANT : parseVariant(value));
    else if (flag === '--fleet') {
      fleet = value.split(',').map((n) => positive(flag, n));
      if (fleet.some((n, i) => i > 0 && n <= fleet[i - 1]!)) {
        throw new Error(`--fleet takes ascending sizes, got ${value}`);
      }
    } else if (arg === '--baseline') baseline = true;
    else throw new Error(`unknown option ${arg} (see the comment at the top of src/idle.ts)`);
  }
  return { samples, variants: variants.length > 0 ? variants : [SHIPPED_VARIANT], fleet, baseline };
}
