import { Option } from 'commander';

/**
 * An `--output` option that accepts only the formats the command writes: an unknown format is a usage error
 * (exit code 1, naming the allowed ones), never silently the default.
 */
export function outputFormatOption(
  flags: string,
  formats: readonly [string, ...string[]],
  description: string,
): Option {
  return new Option(flags, description).choices(formats).default(formats[0]);
}
