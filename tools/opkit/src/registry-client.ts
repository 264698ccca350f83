// Every registry client of the CLI: credentials from docker's and podman's login files (docker login, podman
// login), unless a user and password are given, and the proxy of the environment.
import { type Credentials, dockerCredentials, RegistryClient, type RegistryClientOptions } from '@opkit/oci';
import { CliError } from './cli-error.js';
import { isLoopbackHost } from './loopback.js';

/** `--username` / `--password` (or OPKIT_REGISTRY_PASSWORD), given together or not at all. */
export interface LoginOptions {
  readonly username?: string;
  readonly password?: string;
}

/** A registry client with the login files' credentials, or the ones given for every registry. */
export function cliRegistryClient(options: RegistryClientOptions & LoginOptions = {}): RegistryClient {
  const { username, password: given, ...rest } = options;
  const password = given ?? process.env.OPKIT_REGISTRY_PASSWORD;
  if (given !== undefined && username === undefined)
    throw new CliError('OPKIT_ARGUMENT_INVALID', '--password needs --username');
  let credentials: RegistryClientOptions['credentials'] = dockerCredentials();
  if (username !== undefined) {
    if (password === undefined || password === '')
      throw new CliError('OPKIT_ARGUMENT_INVALID', '--username needs --password or OPKIT_REGISTRY_PASSWORD');
    const login: Credentials = { username, password };
    credentials = () => login;
  }
  return new RegistryClient({
    credentials,
    ...rest,
    ...(rest.plainHttp === true ? { plainHttp: loopbackOnly } : {}),
  });
}

/**
 * `--plain-http` for a registry on this machine only: credentials and content sent unencrypted to a remote
 * registry could be read on the way, so a remote one is refused before anything is sent to it.
 */
function loopbackOnly(registry: string): boolean {
  if (isLoopbackHost(registry)) return true;
  throw new CliError(
    'OPKIT_ARGUMENT_INVALID',
    `--plain-http: ${registry} is not a registry on loopback (localhost, 127.0.0.0/8, [::1]); remote registries are reached over HTTPS only`,
  );
}
