// The command line of `npm create opkit`, parsed with Node's own parser.
import { parseArgs } from 'node:util';
import { operatorNames, parseApi } from '@opkit/nx/names';

export interface CreateOptions {
  readonly directory: string;
  readonly operator?: string;
  readonly api?: string;
  readonly domain?: string;
  readonly skipInstall: boolean;
}

export type ParsedCommand =
  | { readonly kind: 'help' }
  | { readonly kind: 'create'; readonly options: CreateOptions };

export const HELP = `Usage: npm create opkit@latest <directory> -- [options]
       create-opkit <directory> [options]

Makes an Nx workspace for Kubernetes operators in TypeScript, shipped through OLM: the root package.json with
the opkit packages at the versions this create-opkit was released with, then npm install (with your npm
configuration: registry, userconfig), then the files of the @opkit/nx plugin's preset. <directory> must be new
or empty.

Options:
  --operator <name>               a first operator project, operators/<name>
  --api <group>/<version>/<Kind>  a first kind in it (needs --operator)
  --domain <domain>               the operators' domain (default: example.com)
  --skip-install                  write package.json only; finish with the printed commands
  -h, --help                      this help

Examples:
  $ npm create opkit@latest my-operators
  $ npm create opkit@latest my-operators -- --operator postgres-lite
  $ npm create opkit@latest my-operators -- --operator postgres-lite --api db.acme.io/v1alpha1/PostgresInstance --domain acme.io
`;

const DOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$/;

/** The parsed command line, or an error with a one-line message. */
export function parseCommand(argv: readonly string[]): ParsedCommand {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      operator: { type: 'string' },
      api: { type: 'string' },
      domain: { type: 'string' },
      'skip-install': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return { kind: 'help' };
  const [directory, ...extra] = positionals;
  if (directory === undefined) throw new Error('name the directory to create: npm create opkit <directory>');
  if (extra.length > 0) throw new Error(`one directory only, got also ${extra.join(' ')}`);
  // The generators' own checks, before anything is written or installed.
  if (values.operator !== undefined) operatorNames(values.operator);
  if (values.api !== undefined) {
    if (values.operator === undefined)
      throw new Error('--api needs --operator: the operator the kind goes in');
    parseApi(values.api);
  }
  if (values.domain !== undefined && !DOMAIN.test(values.domain)) {
    throw new Error(`--domain ${JSON.stringify(values.domain)}: a DNS subdomain with at least one dot`);
  }
  return {
    kind: 'create',
    options: {
      directory,
      ...(values.operator === undefined ? {} : { operator: values.operator }),
      ...(values.api === undefined ? {} : { api: values.api }),
      ...(values.domain === undefined ? {} : { domain: values.domain }),
      skipInstall: values['skip-install'],
    },
  };
}
