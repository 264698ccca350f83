/** One challenge of a `WWW-Authenticate` header. */
export interface AuthChallenge {
  /** Lower-cased scheme, e.g. `bearer` or `basic`. */
  readonly scheme: string;
  /** Auth parameters with lower-cased names, e.g. `realm`, `service`, `scope`. */
  readonly params: Readonly<Record<string, string>>;
}

/** Registry credentials for basic auth and for token endpoints. */
export interface Credentials {
  readonly username: string;
  readonly password: string;
  /**
   * An OAuth2 refresh token (docker's `identitytoken`): exchanged at the token realm for an access token
   * (`grant_type=refresh_token`) instead of sending the user name and password.
   */
  readonly identityToken?: string;
}

const TOKEN = /[!#$%&'*+.^_`|~0-9A-Za-z-]+/y;

/**
 * Parses `WWW-Authenticate` header values (RFC 7235): one or more challenges, each a scheme followed by
 * comma-separated `name=value` parameters whose values are tokens or quoted strings with `\` escapes, e.g.
 * `Bearer realm="https://auth.example/token",service="registry.example",scope="repository:a/b:pull"`.
 * Several header lines may be passed; malformed parts are skipped.
 */
export function parseWwwAuthenticate(headers: string | readonly string[]): AuthChallenge[] {
  const out: Array<{ scheme: string; params: Record<string, string> }> = [];
  for (const header of typeof headers === 'string' ? [headers] : headers) {
    let i = 0;
    let current: { scheme: string; params: Record<string, string> } | undefined;
    const skipSpace = (): void => {
      while (i < header.length && (header[i] === ' ' || header[i] === '\t')) i++;
    };
    const readToken = (): string | undefined => {
      TOKEN.lastIndex = i;
      const match = TOKEN.exec(header);
      if (match === null) return undefined;
      i += match[0].length;
      return match[0];
    };
    while (i < header.length) {
      skipSpace();
      if (header[i] === ',') {
        i++;
        continue;
      }
      const name = readToken();
      if (name === undefined) {
        i++;
        continue;
      }
      skipSpace();
      if (header[i] === '=' && current !== undefined) {
        i++;
        skipSpace();
        let value = '';
        if (header[i] === '"') {
          i++;
          while (i < header.length && header[i] !== '"') {
            if (header[i] === '\\' && i + 1 < header.length) i++;
            value += header[i];
            i++;
          }
          i++;
        } else {
          value = readToken() ?? '';
        }
        current.params[name.toLowerCase()] = value;
      } else if (header[i] === '=') {
        // A parameter before any scheme, or a token68: skip it.
        while (i < header.length && header[i] !== ',') i++;
      } else {
        current = { scheme: name.toLowerCase(), params: {} };
        out.push(current);
      }
    }
  }
  return out;
}

/** The `Authorization` value for HTTP basic auth. */
export function basicAuthorization(credentials: Credentials): string {
  return `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`, 'utf8').toString('base64')}`;
}

/**
 * Merges repository scopes (`repository:<name>:<actions>`): actions of equal resources are united, so
 * `repository:a:pull` and `repository:a:push` become `repository:a:pull,push`. Result is sorted.
 */
export function mergeScopes(scopes: readonly string[]): string[] {
  const byResource = new Map<string, Set<string>>();
  const plain = new Set<string>();
  for (const scope of scopes.flatMap((s) => s.split(' ')).filter((s) => s !== '')) {
    const lastColon = scope.lastIndexOf(':');
    const resource = scope.slice(0, lastColon);
    if (lastColon <= 0 || !resource.includes(':')) {
      plain.add(scope);
      continue;
    }
    const actions = byResource.get(resource) ?? new Set<string>();
    for (const action of scope.slice(lastColon + 1).split(',')) if (action !== '') actions.add(action);
    byResource.set(resource, actions);
  }
  const merged = [...byResource].map(([resource, actions]) => `${resource}:${[...actions].sort().join(',')}`);
  return [...merged, ...plain].sort();
}
