import { OPERATOR_NODE_OPTIONS } from '@opkit/controller-runtime/manager';

/** What `bench:idle` measures, from its command line. */
export interface IdleOptions {
  /** RSS samples of each process, one a second. */
  readonly samples: number;
  /** Flags node runs the operator's bundle with. */
  readonly nodeOptions: readonly string[];
  /** More environment for the operator. */
  readonly env: Readonly<Record<string, string>>;
  /** Fleet sizes measured after the idle figure, ascending. */
  readonly fleet: readonly number[];
}

function positive(flag: string, text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${flag} takes a positive integer, got ${text}`);
  return value;
}

/** Parses `--samples=`, `--node-options=`, `--env=NAME=VALUE` (repeatable) and `--fleet=`. */
export function parseIdleOptions(args: readonly string[]): IdleOptions {
  let samples = 7;
  let nodeOptions: readonly string[] = OPERATOR_NODE_OPTIONS;
  const env: Record<string, string> = {};
  let fleet: number[] = [];
  for (const arg of args) {
    const [flag, ...rest] = arg.split('=');
    const value = rest.join('=');
    if (flag === '--samples') samples = positive(flag, value);
    else if (flag === '--node-options') nodeOptions = value.split(/\s+/).filter((f) => f.length > 0);
    else if (flag === '--env' && /^[A-Za-z_][A-Za-z0-9_]*=/.test(value)) {
      const at = value.indexOf('=');
      env[value.slice(0, at)] = value.slice(at + 1);
    } else if (flag === '--fleet') {
      fleet = value.split(',').map((n) => positive(flag, n));
      if (fleet.some((n, i) => i > 0 && n <= fleet[i - 1]!)) {
        throw new Error(`--fleet takes ascending sizes, got ${value}`);
      }
    } else throw new Error(`unknown option ${arg} (see the comment at the top of src/idle.ts)`);
  }
  return { samples, nodeOptions, env, fleet };
}
