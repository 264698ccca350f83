// Conventions every opkit command shares, as users of operator-sdk, opm, docker and kubectl expect them:
// `-o, --output <format>` for commands that print data, an Examples section in every `--help`, and option
// values checked when they are parsed (a usage error, exit code 1) rather than silently taken.
import { InvalidArgumentError, Option } from 'commander';

/** The placeholder every output-format option uses; options named `--output <dir>` etc. take a path instead. */
export const OUTPUT_FORMAT_FLAGS = '-o, --output <format>';

// The result formats live beside the writer of results, which the libraries outside commands/ use too.
export { RESULT_FORMATS, type ResultFormat } from '../output.js';

/**
 * An `--output` option that accepts only the formats the command writes: an unknown format is a usage error
 * (exit code 1, naming the allowed ones), never silently the default. The first format is the default.
 */
export function outputFormatOption(
  flags: string,
  formats: readonly [string, ...string[]],
  description: string,
): Option {
  return new Option(flags, description).choices(formats).default(formats[0]);
}

/**
 * The `Examples:` section of `--help` (each line a command as a user types it), with notes before it, for
 * `.addHelpText('after', examples([...]))`.
 */
export function examples(lines: readonly string[], notes?: string): string {
  const intro = notes === undefined ? '' : `\n${notes.trim()}\n`;
  return `${intro}\nExamples:\n${lines.map((e) => `  $ ${e}`).join('\n')}`;
}

/** A parser for an option whose value must be one of `values`, naming them when it is not. */
export function oneOf<T extends string>(values: readonly T[]): (value: string) => T {
  return (value) => {
    if (!(values as readonly string[]).includes(value))
      throw new InvalidArgumentError(`must be one of ${values.join(', ')}.`);
    return value as T;
  };
}

/** A parser for a comma-separated list without empty entries (`a,,b` and `a,` are refused). */
export function commaList(value: string): string[] {
  const items = value.split(',').map((s) => s.trim());
  if (items.some((s) => s === ''))
    throw new InvalidArgumentError('must be a comma-separated list without empty entries.');
  return items;
}

/** The catalog's registry pod: `restricted` for namespaces that enforce it, `legacy` for old catalog images. */
export function securityContextOption(): Option {
  return new Option(
    '--security-context-config <config>',
    "the registry pod's security context (CatalogSource spec.grpcPodConfig.securityContextConfig; default: OLM's choice by the namespace's Pod Security level)",
  ).choices(['legacy', 'restricted']);
}
